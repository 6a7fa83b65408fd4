//! What the sandbox's routes read and answer, in `http` types: bodies read under a bound and a
//! deadline, JSON answers and RFC 8628-shaped errors, pages with their security headers, and
//! cookies.

use std::convert::Infallible;

use bytes::Bytes;
use http::header::{CACHE_CONTROL, CONTENT_TYPE, COOKIE, HeaderName, HeaderValue, SET_COOKIE};
use http::{HeaderMap, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full, Limited};
use serde_json::{Value, json};

use super::limits::{BODY_TIMEOUT, MAX_BODY_BYTES};

/// A sandbox response's body: whole bytes, or an event stream.
pub type Body = BoxBody<Bytes, Infallible>;
/// A sandbox response.
pub type Response = http::Response<Body>;

/// What pages may load and where they may send: only this origin, nothing inline, no frames.
const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
    connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// A whole body of `content_type`.
pub fn bytes(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Response {
    let mut response = http::Response::new(Full::new(body.into()).boxed());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(HeaderName::from_static("x-content-type-options"), HeaderValue::from_static("nosniff"));
    response
}

pub fn json(status: StatusCode, value: &Value) -> Response {
    bytes(status, "application/json", value.to_string())
}

/// An error as RFC 8628 (and RFC 6749 §5.2) shape it: a stable `error` code for a program, a
/// description for a person.
pub fn error(status: StatusCode, code: &str, description: &str) -> Response {
    json(status, &json!({ "error": code, "error_description": description }))
}

/// An HTML page, with the headers that keep it from being framed, fed inline script or leaking
/// its address.
pub fn page(status: StatusCode, html: String) -> Response {
    let mut response = bytes(status, "text/html; charset=utf-8", html);
    let headers = response.headers_mut();
    headers.insert(HeaderName::from_static("content-security-policy"), HeaderValue::from_static(PAGE_POLICY));
    headers.insert(HeaderName::from_static("referrer-policy"), HeaderValue::from_static("no-referrer"));
    headers.insert(HeaderName::from_static("x-frame-options"), HeaderValue::from_static("DENY"));
    response
}

/// Reads a JSON body (an empty one is `{}`), up to `MAX_BODY_BYTES` and `BODY_TIMEOUT`.
pub async fn read_json<B>(body: B) -> Result<Value, Response>
where
    B: http_body::Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let read = tokio::time::timeout(BODY_TIMEOUT, Limited::new(body, MAX_BODY_BYTES).collect()).await;
    let bytes = match read {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            let description = format!("the body is over {MAX_BODY_BYTES} bytes");
            return Err(error(StatusCode::PAYLOAD_TOO_LARGE, "too_large", &description));
        }
        Ok(Err(e)) => return Err(error(StatusCode::BAD_REQUEST, "invalid_request", &format!("the body broke: {e}"))),
        Err(_) => {
            let description = format!("the body did not arrive within {BODY_TIMEOUT:?}");
            return Err(error(StatusCode::REQUEST_TIMEOUT, "invalid_request", &description));
        }
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| error(StatusCode::BAD_REQUEST, "invalid_request", &format!("the body is not JSON: {e}")))
}

/// The value of the cookie `name` the request carries (the first, when it carries several).
pub fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// Sets a cookie scripts cannot read and other sites' requests never carry.
pub fn set_cookie(response: &mut Response, name: &str, value: &str) {
    let cookie = format!("{name}={value}; Path=/; HttpOnly; SameSite=Strict");
    if let Ok(value) = HeaderValue::try_from(cookie) {
        response.headers_mut().append(SET_COOKIE, value);
    }
}

/// The one value of a header, as text; `None` when absent, repeated or not visible ASCII.
pub fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    let mut values = headers.get_all(name).iter();
    match (values.next(), values.next()) {
        (Some(value), None) => value.to_str().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_read_by_name() {
        let mut headers = HeaderMap::new();
        headers.append(COOKIE, HeaderValue::from_static("a=1; valem_session=tok; b=2"));
        headers.append(COOKIE, HeaderValue::from_static("valem_csrf=c"));
        assert_eq!(cookie(&headers, "valem_session"), Some("tok"));
        assert_eq!(cookie(&headers, "valem_csrf"), Some("c"));
        assert_eq!(cookie(&headers, "valem"), None);
    }

    #[test]
    fn a_set_cookie_is_http_only_and_strict() {
        let mut response = json(StatusCode::OK, &json!({}));
        set_cookie(&mut response, "valem_session", "tok");
        assert_eq!(response.headers()[SET_COOKIE], "valem_session=tok; Path=/; HttpOnly; SameSite=Strict");
    }

    #[tokio::test]
    async fn a_body_is_read_under_its_bound() {
        assert_eq!(read_json(Full::new(Bytes::from_static(b" "))).await.unwrap(), json!({}));
        assert_eq!(read_json(Full::new(Bytes::from_static(br#"{"a":1}"#))).await.unwrap(), json!({ "a": 1 }));
        let big = Full::new(Bytes::from(vec![b' '; MAX_BODY_BYTES + 1]));
        assert_eq!(read_json(big).await.unwrap_err().status(), StatusCode::PAYLOAD_TOO_LARGE);
        let bad = read_json(Full::new(Bytes::from_static(b"{"))).await.unwrap_err();
        assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    }
}
