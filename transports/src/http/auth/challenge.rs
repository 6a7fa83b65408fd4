//! The answers to a request the resource server refuses, each with its `WWW-Authenticate`
//! challenge (RFC 6750 section 3, RFC 9728 section 5.1): 401 without a usable token, 400 for a
//! token sent another way than the `Authorization` header, 403 when the token lacks a scope the
//! operation needs. Every challenge of a resource server names its protected resource metadata,
//! so a client that knows nothing yet finds the authorization server from it.

use hyper::StatusCode;
use hyper::header::{HeaderValue, WWW_AUTHENTICATE};
use serde_json::json;

use crate::http::body::{self, HttpResponse};

/// `Bearer key="value", ...`, values quoted (a `"` or `\` in one escaped).
fn bearer(params: &[(&str, &str)]) -> String {
    let quoted: Vec<String> = params
        .iter()
        .map(|(key, value)| format!("{key}=\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    if quoted.is_empty() { "Bearer".to_owned() } else { format!("Bearer {}", quoted.join(", ")) }
}

fn refusal(status: StatusCode, error: Option<&str>, description: &str, params: &[(&str, &str)]) -> HttpResponse {
    let mut body = json!({ "error": error.unwrap_or("unauthorized"), "error_description": description });
    if let Some((_, scope)) = params.iter().find(|(key, _)| *key == "scope") {
        body["scope"] = json!(scope);
    }
    let mut response = body::json(status, &body);
    if let Ok(value) = HeaderValue::from_str(&bearer(params)) {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response
}

/// 401 for a request with no token: the challenge names where to learn how to get one.
pub(super) fn no_token(metadata_url: &str) -> HttpResponse {
    refusal(StatusCode::UNAUTHORIZED, None, "this server needs a bearer token", &[("resource_metadata", metadata_url)])
}

/// 401 `invalid_token`: the token given is not one this server accepts.
pub(super) fn invalid_token(metadata_url: &str, description: &str) -> HttpResponse {
    refusal(
        StatusCode::UNAUTHORIZED,
        Some("invalid_token"),
        description,
        &[("error", "invalid_token"), ("error_description", description), ("resource_metadata", metadata_url)],
    )
}

/// 400 `invalid_request`: a token in the query string (or a malformed Authorization header).
pub(super) fn invalid_request(metadata_url: &str, description: &str) -> HttpResponse {
    refusal(
        StatusCode::BAD_REQUEST,
        Some("invalid_request"),
        description,
        &[("error", "invalid_request"), ("error_description", description), ("resource_metadata", metadata_url)],
    )
}

/// 503: the token could not be checked, the authorization server's keys being out of reach.
pub(super) fn unavailable(detail: &str) -> HttpResponse {
    body::error(StatusCode::SERVICE_UNAVAILABLE, format!("the token cannot be checked now: {detail}"))
}

/// 403 `insufficient_scope`: the scopes the operation needs, to ask the authorization server for.
pub(super) fn insufficient_scope(metadata_url: Option<&str>, needed: &[String]) -> HttpResponse {
    let scope = needed.join(" ");
    let description = format!("this operation needs the scope {scope}");
    let mut params = vec![("error", "insufficient_scope"), ("scope", scope.as_str())];
    params.extend(metadata_url.map(|url| ("resource_metadata", url)));
    params.push(("error_description", description.as_str()));
    refusal(StatusCode::FORBIDDEN, Some("insufficient_scope"), &description, &params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_quote_their_parameters() {
        let r = no_token("http://h/.well-known/oauth-protected-resource/mcp");
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            r.headers()[WWW_AUTHENTICATE],
            "Bearer resource_metadata=\"http://h/.well-known/oauth-protected-resource/mcp\""
        );
        let r = insufficient_scope(Some("http://m"), &["a:w".into(), "b".into()]);
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        let challenge = r.headers()[WWW_AUTHENTICATE].to_str().unwrap();
        assert!(
            challenge
                .starts_with("Bearer error=\"insufficient_scope\", scope=\"a:w b\", resource_metadata=\"http://m\""),
            "{challenge}"
        );
        assert_eq!(bearer(&[("x", "say \"hi\\")]), "Bearer x=\"say \\\"hi\\\\\"");
    }
}
