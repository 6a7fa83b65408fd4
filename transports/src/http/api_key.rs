//! The API key `serve --api-key` requires: every request but `GET /health` (and CORS preflights,
//! which a browser sends without credentials) must carry `Authorization: Bearer KEY`, else it is
//! answered 401 `{"error": "Missing or invalid API key"}` with `WWW-Authenticate: Bearer`.
//!
//! The key is compared in constant time (the SHA-256 digests of both sides, so neither the
//! position of the first difference nor the key's length shows in the timing), and it is printed
//! nowhere: its `Debug` is redacted and no refusal quotes what the client sent.

use hyper::header::{AUTHORIZATION, HeaderValue, WWW_AUTHENTICATE};
use hyper::{HeaderMap, StatusCode};
use sha2::{Digest, Sha256};

use super::InvalidSetting;
use super::body::{self, HttpResponse};

/// What a refused request is told; the same whether the header was missing or wrong.
pub(super) const REFUSAL: &str = "Missing or invalid API key";

/// The setting as its refusals name it.
const SETTING: &str = "API key";

/// Why a key of other characters is refused: it could not travel in a header as it was typed.
const VISIBLE_ASCII: &str = "must be visible ASCII characters only (no spaces)";

/// The path answered without a key, so a load balancer or supervisor can probe the server.
pub(super) const HEALTH_PATH: &str = "/health";

/// A key clients must present. Only its digest is kept.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey {
    digest: [u8; 32],
}

impl ApiKey {
    /// The key `secret`, checked: not empty, visible ASCII.
    pub fn new(secret: &str) -> Result<ApiKey, InvalidSetting> {
        if secret.is_empty() {
            return Err(InvalidSetting::secret(SETTING, "is empty"));
        }
        if !secret.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(InvalidSetting::secret(SETTING, VISIBLE_ASCII));
        }
        Ok(ApiKey { digest: Sha256::digest(secret.as_bytes()).into() })
    }

    /// Whether the request's headers carry this key as `Authorization: Bearer KEY` (one such
    /// header: a second one is refused rather than guessed between).
    pub fn authorizes(&self, headers: &HeaderMap) -> bool {
        let mut values = headers.get_all(AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else { return false };
        let Some(given) = value.as_bytes().strip_prefix(b"Bearer ") else { return false };
        let given: [u8; 32] = Sha256::digest(given).into();
        given.iter().zip(&self.digest).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }

    /// `None` when the request may go on, else the 401 to answer it with.
    pub fn check(&self, headers: &HeaderMap) -> Option<HttpResponse> {
        if self.authorizes(headers) {
            return None;
        }
        let mut refusal = body::error(StatusCode::UNAUTHORIZED, REFUSAL);
        refusal.headers_mut().insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        Some(refusal)
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// `GET /health`: `{"status": "ok"}`, with or without a key.
pub(super) fn health() -> HttpResponse {
    body::json(StatusCode::OK, &serde_json::json!({ "status": "ok" }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(AUTHORIZATION, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn only_the_exact_bearer_key_authorizes() {
        let key = ApiKey::new("s3cret-key").unwrap();
        assert!(key.authorizes(&headers(&["Bearer s3cret-key"])));
        for bad in [
            &["Bearer s3cret-ke"][..],
            &["Bearer s3cret-keyX"],
            &["s3cret-key"],
            &["Basic s3cret-key"],
            &["bearer s3cret-key"],
            &["Bearer  s3cret-key"],
            &[],
            &["Bearer s3cret-key", "Bearer s3cret-key"],
        ] {
            assert!(!key.authorizes(&headers(bad)), "{bad:?}");
        }
        let refusal = key.check(&headers(&[])).unwrap();
        assert_eq!(refusal.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(refusal.headers()[WWW_AUTHENTICATE], "Bearer");
        assert!(key.check(&headers(&["Bearer s3cret-key"])).is_none());
    }

    #[test]
    fn a_key_is_visible_ascii_and_never_printed() {
        assert_eq!(ApiKey::new(""), Err(InvalidSetting::secret(SETTING, "is empty")));
        assert_eq!(ApiKey::new("two words"), Err(InvalidSetting::secret(SETTING, VISIBLE_ASCII)));
        assert_eq!(ApiKey::new("clé"), Err(InvalidSetting::secret(SETTING, VISIBLE_ASCII)));
        let key = ApiKey::new("s3cret-key").unwrap();
        assert_eq!(format!("{key:?}"), "ApiKey(<redacted>)");
        assert!(!ApiKey::new("s3cret key").unwrap_err().to_string().contains("s3cret"));
    }
}
