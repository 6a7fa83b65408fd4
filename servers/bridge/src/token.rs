//! The hub's bearer token: compared in constant time, and never shown (its `Debug` is redacted).

/// The environment variable the token is read from when `--token` is not given.
pub const TOKEN_ENV: &str = "JEVALAN_TOKEN";

#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// A token; an empty one is none.
    pub fn new(secret: String) -> Option<Token> {
        (!secret.is_empty()).then_some(Token(secret))
    }

    pub fn secret(&self) -> &str {
        &self.0
    }

    /// Whether an `Authorization` header carries this token, in time independent of where the
    /// first difference is.
    pub fn authorizes(&self, header: Option<&[u8]>) -> bool {
        let Some(given) = header.and_then(|h| h.strip_prefix(b"Bearer ")) else { return false };
        let expected = self.0.as_bytes();
        given.len() == expected.len() && given.iter().zip(expected).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }

    /// The text with every occurrence of the token replaced: what a hub sends back is shown to
    /// the client, and a hub that echoes its request must not leak the token through it.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.0, "<redacted>")
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bearer_token_authorizes() {
        let t = Token::new("s3cret".into()).unwrap();
        assert!(t.authorizes(Some(b"Bearer s3cret")));
        for bad in [&b"Bearer s3cre"[..], b"Bearer s3cretX", b"s3cret", b"Basic s3cret", b""] {
            assert!(!t.authorizes(Some(bad)), "{bad:?}");
        }
        assert!(!t.authorizes(None));
        assert!(Token::new(String::new()).is_none());
        assert_eq!(format!("{t:?}"), "Token(<redacted>)");
        assert_eq!(t.redact("a s3cret b s3cret"), "a <redacted> b <redacted>");
    }
}
