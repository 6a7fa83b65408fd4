//! The authorization server's metadata, found as the MCP specification's discovery order says:
//! OAuth 2.0 Authorization Server Metadata (RFC 8414) first, then OpenID Connect Discovery, with
//! the well-known part inserted before an issuer's path and, for OpenID Connect, appended after it.

use serde_json::{Map, Value};

use super::fetch::{self, FetchError};

/// What the resource server needs of the authorization server's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ServerMetadata {
    /// Where its signing keys are (absent when it signs no tokens, e.g. opaque ones only).
    pub(super) jwks_uri: Option<String>,
    /// Its RFC 7662 introspection endpoint, when it states one.
    pub(super) introspection_endpoint: Option<String>,
}

/// The authorization server tokens come from: its issuer identifier, and its metadata once found
/// (a failed discovery is tried again at the next need; callers bound how often).
#[derive(Debug)]
pub(super) struct Issuer {
    pub(super) url: String,
    metadata: tokio::sync::OnceCell<ServerMetadata>,
}

impl Issuer {
    pub(super) fn new(url: String) -> Self {
        Issuer { url, metadata: tokio::sync::OnceCell::new() }
    }

    /// Its metadata, discovered at the first call that succeeds.
    pub(super) async fn metadata(&self) -> Result<&ServerMetadata, FetchError> {
        self.metadata.get_or_try_init(|| discover(&self.url)).await
    }
}

/// The URLs to try for `issuer`'s metadata, in the specification's order.
pub(super) fn candidates(issuer: &str) -> Vec<String> {
    let issuer = issuer.trim_end_matches('/');
    let (origin, path) = match issuer.find("://").map(|i| i + 3) {
        Some(start) => match issuer[start..].find('/') {
            Some(slash) => issuer.split_at(start + slash),
            None => (issuer, ""),
        },
        None => (issuer, ""),
    };
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        urls.push(format!("{issuer}/.well-known/openid-configuration"));
    }
    urls
}

/// The metadata of `issuer`: the first candidate that answers a document naming this very issuer
/// (RFC 8414 section 3.3: one naming another is not its metadata).
async fn discover(issuer: &str) -> Result<ServerMetadata, FetchError> {
    let mut failures = Vec::new();
    for url in candidates(issuer) {
        match fetch::json_object(&url).await.and_then(|document| read(&url, issuer, &document)) {
            Ok(metadata) => return Ok(metadata),
            Err(e) => failures.push(e.0),
        }
    }
    Err(FetchError(format!("no metadata for the issuer {issuer}: {}", failures.join("; "))))
}

fn read(url: &str, issuer: &str, document: &Map<String, Value>) -> Result<ServerMetadata, FetchError> {
    let stated = document.get("issuer").and_then(Value::as_str);
    if stated != Some(issuer) {
        return Err(FetchError(format!("{url} names the issuer {stated:?}, not {issuer:?}")));
    }
    let url_of = |key: &str| document.get(key).and_then(Value::as_str).map(str::to_owned);
    Ok(ServerMetadata { jwks_uri: url_of("jwks_uri"), introspection_endpoint: url_of("introspection_endpoint") })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_candidates_follow_the_specification_order() {
        assert_eq!(
            candidates("https://auth.example.com"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            candidates("https://auth.example.com/tenant1"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn metadata_naming_another_issuer_is_refused() {
        let document = json!({ "issuer": "http://a", "jwks_uri": "http://a/jwks" });
        let Value::Object(document) = document else { unreachable!() };
        assert_eq!(read("u", "http://a", &document).unwrap().jwks_uri.as_deref(), Some("http://a/jwks"));
        assert!(read("u", "http://b", &document).is_err());
    }
}
