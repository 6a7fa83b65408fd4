//! Cross-site request forgery: a page of another site must not make the developer's browser
//! approve a pairing (which would hand the browser that site's namespace) or write to a model.
//! Every page sets a random token in an HttpOnly, SameSite=Strict cookie and writes the same
//! token into the page; a request that changes something must send it back in the
//! `X-CSRF-Token` header (which another site's page can neither read nor send without a CORS
//! preflight, which the sandbox never grants), and come from this origin when the browser says
//! where it comes from (`Origin`, `Sec-Fetch-Site`).

use http::HeaderMap;
use http::StatusCode;
use http::header::{HOST, ORIGIN};

use super::reply::{self, Response};
use super::secrets;

/// The cookie holding the token.
pub const COOKIE: &str = "valem_csrf";
/// The header a changing request sends the token back in.
pub const HEADER: &str = "x-csrf-token";

/// The token to write into a page: the browser's own, or a new one the response must set.
pub fn token(headers: &HeaderMap) -> (String, bool) {
    match reply::cookie(headers, COOKIE).filter(|t| t.len() == 43 && t.bytes().all(is_token_byte)) {
        Some(token) => (token.to_owned(), false),
        None => (secrets::token(), true),
    }
}

/// `Ok` when the request carries the page's token and comes from this origin; else the 403.
pub fn check(headers: &HeaderMap) -> Result<(), Response> {
    let refuse = |why: &str| Err(reply::error(StatusCode::FORBIDDEN, "csrf", why));
    let (Some(cookie), Some(sent)) = (reply::cookie(headers, COOKIE), reply::header(headers, HEADER)) else {
        return refuse("the request carries no page token (X-CSRF-Token and its cookie): reload the page");
    };
    if !secrets::same_digest(&secrets::digest(cookie), &secrets::digest(sent)) {
        return refuse("the page token does not match its cookie: reload the page");
    }
    if reply::header(headers, "sec-fetch-site").is_some_and(|site| site != "same-origin") {
        return refuse("the request comes from another site");
    }
    if let Some(origin) = headers.get(ORIGIN) {
        let own = reply::header(headers, HOST.as_str()).map(|host| format!("http://{host}"));
        if own.as_deref().map(str::as_bytes) != Some(origin.as_bytes()) {
            return refuse("the request comes from another origin");
        }
    }
    Ok(())
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    #[test]
    fn a_page_reuses_the_browser_token_or_makes_one() {
        let (fresh, set) = token(&HeaderMap::new());
        assert!(set);
        let cookie = format!("{COOKIE}={fresh}");
        assert_eq!(token(&headers(&[("cookie", &cookie)])), (fresh, false));
        assert!(token(&headers(&[("cookie", "valem_csrf=short")])).1, "a malformed token is replaced");
    }

    #[test]
    fn a_changing_request_needs_the_token_and_this_origin() {
        let (t, _) = token(&HeaderMap::new());
        let cookie = format!("{COOKIE}={t}");
        let status = |pairs: &[(&'static str, &str)]| check(&headers(pairs)).err().map(|r| r.status());
        let own = [("cookie", cookie.as_str()), (HEADER, t.as_str()), ("host", "127.0.0.1:8080")];
        assert_eq!(status(&own), None);
        let same_origin = [own.as_slice(), &[("origin", "http://127.0.0.1:8080"), ("sec-fetch-site", "same-origin")]];
        assert_eq!(status(&same_origin.concat()), None);
        let forbidden = Some(StatusCode::FORBIDDEN);
        assert_eq!(status(&own[..1]), forbidden, "no header");
        assert_eq!(status(&own[1..]), forbidden, "no cookie");
        assert_eq!(status(&[own[0], (HEADER, "x"), own[2]]), forbidden, "another token");
        assert_eq!(status(&[own.as_slice(), &[("origin", "http://evil.example")]].concat()), forbidden);
        assert_eq!(status(&[own.as_slice(), &[("sec-fetch-site", "cross-site")]].concat()), forbidden);
    }
}
