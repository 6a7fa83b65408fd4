//! Opaque access tokens, checked by asking the authorization server (RFC 7662): the token is
//! POSTed to its introspection endpoint with this server's client credentials, and accepted
//! when the answer says it is active, from the issuer, for this resource (`aud`), and within its
//! lifetime. One request per token presented: a revoked token is refused at once.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use hyper::header::{ACCEPT, AUTHORIZATION, HeaderName, HeaderValue};
use serde_json::Value;
use tooltable::Principal;

use super::fetch::{self, FetchError};
use super::token::{Expected, LEEWAY_SECS, Rejection, principal};

/// Where tokens are introspected, and as which client.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct Introspection {
    pub(super) endpoint: String,
    pub(super) client_id: String,
    pub(super) client_secret: String,
}

impl std::fmt::Debug for Introspection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Introspection")
            .field("endpoint", &self.endpoint)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .finish()
    }
}

impl Introspection {
    /// `Authorization: Basic` of the client credentials, each form-encoded first (RFC 6749
    /// section 2.3.1), marked sensitive.
    fn authorization(&self) -> Option<HeaderValue> {
        let encode = |text: &str| form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
        let pair = format!("{}:{}", encode(&self.client_id), encode(&self.client_secret));
        let basic = base64::engine::general_purpose::STANDARD.encode(pair);
        let mut value = HeaderValue::try_from(format!("Basic {basic}")).ok()?;
        value.set_sensitive(true);
        Some(value)
    }

    /// The principal of an active token for this resource.
    pub(super) async fn introspect(&self, token: &str, expected: &Expected<'_>) -> Result<Principal, Rejection> {
        let unavailable = |e: FetchError| Rejection::Unavailable(e.0);
        let (client, path) = fetch::client_for(&self.endpoint).map_err(unavailable)?;
        let form = form_urlencoded::Serializer::new(String::new())
            .append_pair("token", token)
            .append_pair("token_type_hint", "access_token")
            .finish();
        let mut headers: Vec<(HeaderName, HeaderValue)> = vec![(ACCEPT, HeaderValue::from_static("application/json"))];
        headers.extend(self.authorization().map(|value| (AUTHORIZATION, value)));
        let answer =
            client.post_form(&path, form, &headers).await.map_err(|e| Rejection::Unavailable(e.to_string()))?;
        let claims = fetch::object(&self.endpoint, answer.status, &answer.body).map_err(unavailable)?;
        check(&claims, expected, now())?;
        principal(claims).ok_or(Rejection::Invalid("the token names no subject"))
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// What an introspection answer must say of an acceptable token.
fn check(claims: &serde_json::Map<String, Value>, expected: &Expected<'_>, now: u64) -> Result<(), Rejection> {
    if claims.get("active") != Some(&Value::Bool(true)) {
        return Err(Rejection::Invalid("the token is not active"));
    }
    if claims.get("token_type").and_then(Value::as_str).is_some_and(|t| t.eq_ignore_ascii_case("refresh_token")) {
        return Err(Rejection::Invalid("a refresh token is no access token"));
    }
    if claims.get("iss").and_then(Value::as_str).is_some_and(|iss| iss != expected.issuer) {
        return Err(Rejection::Invalid("the token is from another issuer"));
    }
    let audiences: Vec<&str> = match claims.get("aud") {
        Some(Value::String(aud)) => vec![aud.as_str()],
        Some(Value::Array(auds)) => auds.iter().filter_map(Value::as_str).collect(),
        _ => return Err(Rejection::Invalid("the token names no audience")),
    };
    if !audiences.iter().any(|aud| expected.audiences.iter().any(|accepted| accepted == aud)) {
        return Err(Rejection::Invalid("the token is for another resource"));
    }
    let time = |key: &str| claims.get(key).and_then(Value::as_u64);
    if time("exp").is_some_and(|exp| exp + LEEWAY_SECS < now) {
        return Err(Rejection::Invalid("the token has expired"));
    }
    if time("nbf").is_some_and(|nbf| nbf > now + LEEWAY_SECS) {
        return Err(Rejection::Invalid("the token is not valid yet"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn checked(answer: Value) -> Result<(), Rejection> {
        let Value::Object(claims) = answer else { unreachable!() };
        let audiences = ["http://h/mcp".to_owned()];
        check(&claims, &Expected { issuer: "http://as", audiences: &audiences }, 1_000)
    }

    #[test]
    fn only_an_active_access_token_for_this_resource_passes() {
        let good = json!({ "active": true, "iss": "http://as", "aud": "http://h/mcp", "exp": 2_000, "client_id": "c" });
        assert_eq!(checked(good.clone()), Ok(()));
        let with = |key: &str, value: Value| {
            let mut answer = good.clone();
            answer[key] = value;
            checked(answer)
        };
        let invalid = |description| Err(Rejection::Invalid(description));
        assert_eq!(with("active", json!(false)), invalid("the token is not active"));
        assert_eq!(with("iss", json!("http://other")), invalid("the token is from another issuer"));
        assert_eq!(with("aud", json!(["http://other/mcp"])), invalid("the token is for another resource"));
        assert_eq!(with("aud", Value::Null), invalid("the token names no audience"));
        assert_eq!(with("exp", json!(900)), invalid("the token has expired"));
        assert_eq!(with("nbf", json!(1_100)), invalid("the token is not valid yet"));
        assert_eq!(with("token_type", json!("refresh_token")), invalid("a refresh token is no access token"));
        assert_eq!(checked(json!({ "active": "true", "aud": "http://h/mcp" })), invalid("the token is not active"));
    }

    #[test]
    fn the_client_secret_is_never_printed() {
        let introspection = Introspection {
            endpoint: "http://as/introspect".into(),
            client_id: "rs".into(),
            client_secret: "s3cret".into(),
        };
        assert!(!format!("{introspection:?}").contains("s3cret"));
        let header = introspection.authorization().unwrap();
        assert!(header.is_sensitive());
        assert_eq!(header, "Basic cnM6czNjcmV0");
    }
}
