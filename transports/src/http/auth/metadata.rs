//! The protected resource metadata (RFC 9728): what a client reads to learn which authorization
//! server issues tokens for this server and which scopes it knows. Served at
//! `/.well-known/oauth-protected-resource` followed by the resource's path (`/mcp`), and at the
//! well-known path alone, the two places the MCP specification has clients look.

use hyper::StatusCode;
use serde_json::{Value, json};

use crate::http::body::{self, HttpResponse};

/// The well-known prefix of RFC 9728.
pub(super) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The metadata document of `resource`, protected by `issuer`'s tokens: `scopes_supported` lists
/// the scopes the server's operations need, and is left out when none needs any.
pub(super) fn document(resource: &str, issuer: &str, scopes: &[String]) -> Value {
    let mut document = json!({
        "resource": resource,
        "authorization_servers": [issuer],
        "bearer_methods_supported": ["header"],
    });
    if !scopes.is_empty() {
        document["scopes_supported"] = json!(scopes);
    }
    document
}

/// The answer to `GET` on a metadata path, which clients may keep for a few minutes.
pub(super) fn answer(document: &Value) -> HttpResponse {
    use hyper::header::{CACHE_CONTROL, HeaderValue};
    let mut response = body::json(StatusCode::OK, document);
    response.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("max-age=300"));
    response
}
