//! CORS for browser clients: only origins named with `--allow-origin` (or `*`) may call from
//! another origin. Their preflights are answered with the methods of the path and the headers MCP
//! clients send, and their responses expose the session and version headers and the OAuth challenge. By default nothing is
//! allowed cross-origin: a page on `http://localhost:5173` passes the Origin check (it is local)
//! but its browser gets no CORS headers.

use hyper::StatusCode;
use hyper::header::{self, HeaderMap, HeaderValue};

use super::body::{self, HttpResponse};
use super::guard::AccessPolicy;

/// The request headers MCP clients send.
const ALLOWED_HEADERS: &str =
    "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id";
/// The response headers a browser client must read (the challenge of an OAuth refusal among them).
const EXPOSED_HEADERS: &str = "mcp-session-id, mcp-protocol-version, www-authenticate";
/// How long a browser may cache a preflight, in seconds.
const MAX_AGE_SECS: &str = "600";

/// The request's origin when it may call cross-origin: one `Origin` header, named in the policy.
pub(super) fn allowed_origin(access: AccessPolicy<'_>, headers: &HeaderMap) -> Option<HeaderValue> {
    // By default none is: every request asks, and then need not look for its origin.
    if !access.allows_any_cross_origin() {
        return None;
    }
    let mut origins = headers.get_all(header::ORIGIN).iter();
    let origin = origins.next()?;
    if origins.next().is_some() {
        return None;
    }
    access.allows_cross_origin(origin.to_str().ok()?).then(|| origin.clone())
}

/// The answer to `OPTIONS` on a path serving `methods`: a preflight's when the origin is allowed,
/// a 403 naming the flag when it is not, and plain `Allow` otherwise.
pub(super) fn options(methods: &str, headers: &HeaderMap, origin_allowed: bool) -> HttpResponse {
    let preflight = headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    if preflight && !origin_allowed {
        let origin = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()).unwrap_or("");
        return body::error(
            StatusCode::FORBIDDEN,
            format!("cross-origin requests from {origin:?} are not allowed; serve with --allow-origin {origin}"),
        );
    }
    let mut response = body::empty(StatusCode::NO_CONTENT);
    let h = response.headers_mut();
    if let Ok(allow) = HeaderValue::from_str(&format!("{methods}, OPTIONS")) {
        if preflight {
            h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, allow.clone());
            h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static(ALLOWED_HEADERS));
            h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static(MAX_AGE_SECS));
        }
        h.insert(header::ALLOW, allow);
    }
    response
}

/// Lets a browser at `origin` read the response and its session headers.
pub(super) fn allow(response: &mut HttpResponse, origin: HeaderValue) {
    let h = response.headers_mut();
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    h.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED_HEADERS));
    h.append(header::VARY, HeaderValue::from_static("origin"));
}
