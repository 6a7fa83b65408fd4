//! Secrets kept out of session files: bearer tokens (`Bearer …` anywhere in a string), the value
//! of a member named like a credential (`authorization`, `apiKey`, `password`, …), the credentials
//! a recorder saw in HTTP headers, and the value of every environment variable whose name holds
//! `TOKEN`, `KEY`, `SECRET` or `PASSWORD`: each becomes [`REDACTED`].
//!
//! ```
//! use serde_json::json;
//! use tooltable_golden::redact::{REDACTED, Secrets};
//!
//! let mut secrets = Secrets::default();
//! secrets.add("s3cret-t0ken-from-a-header");
//! let message = json!({
//!     "params": { "apiKey": "k-123", "note": "sent with Bearer abc.def.ghi", "echo": "s3cret-t0ken-from-a-header" }
//! });
//! let written = secrets.redact(&message);
//! assert_eq!(written["params"]["apiKey"], REDACTED);
//! assert_eq!(written["params"]["note"], format!("sent with Bearer {REDACTED}"));
//! assert_eq!(written["params"]["echo"], REDACTED);
//! ```

use regex::Regex;
use serde_json::Value;

/// What a secret is written as.
pub const REDACTED: &str = "<REDACTED>";

/// The words of an environment variable's name that make its value a secret.
pub const SECRET_VARIABLE_WORDS: [&str; 4] = ["TOKEN", "KEY", "SECRET", "PASSWORD"];

/// Shorter values are not taken from the environment: `KEY=1` would redact every `1`.
pub const MIN_SECRET_CHARS: usize = 8;

/// Member names (lower case, without `-` and `_`) whose string value is a credential.
const SECRET_MEMBERS: &[&str] = &[
    "authorization",
    "apikey",
    "xapikey",
    "accesstoken",
    "refreshtoken",
    "idtoken",
    "bearertoken",
    "clientsecret",
    "secret",
    "password",
    "token",
];

/// The secrets of one recording or replay.
#[derive(Debug, Clone)]
pub struct Secrets {
    values: Vec<String>,
    bearer: Regex,
}

impl Default for Secrets {
    fn default() -> Self {
        Secrets {
            values: Vec::new(),
            bearer: Regex::new(r"\b([Bb]earer|BEARER)\s+([A-Za-z0-9._~+/-]+=*)").expect("a valid pattern"),
        }
    }
}

impl Secrets {
    /// The values of this process's environment variables named as secrets.
    pub fn from_env() -> Self {
        let mut secrets = Secrets::default();
        for (name, value) in std::env::vars_os() {
            let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else { continue };
            if SECRET_VARIABLE_WORDS.iter().any(|w| name.to_ascii_uppercase().contains(w)) {
                secrets.add(value);
            }
        }
        secrets
    }

    /// A value never to be written (a token seen in a header, say); short ones are ignored.
    pub fn add(&mut self, value: &str) {
        let value = value.trim();
        if value.chars().count() >= MIN_SECRET_CHARS && !self.values.iter().any(|v| v == value) {
            self.values.push(value.to_owned());
            // The longest first, so a secret that holds another is replaced whole.
            self.values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        }
    }

    /// `v` with every secret in it replaced by [`REDACTED`].
    pub fn redact(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.redact_str(s)),
            Value::Array(items) => Value::Array(items.iter().map(|i| self.redact(i)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let value = match v {
                            Value::String(_) if is_secret_member(k) => Value::from(REDACTED),
                            _ => self.redact(v),
                        };
                        (k.clone(), value)
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn redact_str(&self, s: &str) -> String {
        let mut s = self
            .bearer
            .replace_all(s, |c: &regex::Captures<'_>| match looks_like_a_token(&c[2]) {
                true => format!("{} {REDACTED}", &c[1]),
                false => c[0].to_owned(),
            })
            .into_owned();
        for value in &self.values {
            s = s.replace(value.as_str(), REDACTED);
        }
        s
    }
}

/// A word after `Bearer` that is a credential, not prose ("Bearer authentication"): eight
/// characters or more with a digit or a symbol of the token alphabet.
fn looks_like_a_token(word: &str) -> bool {
    word.len() >= MIN_SECRET_CHARS && word.chars().any(|c| c.is_ascii_digit() || "._~+/-=".contains(c))
}

fn is_secret_member(name: &str) -> bool {
    let folded: String = name.chars().filter(|c| *c != '-' && *c != '_').collect::<String>().to_ascii_lowercase();
    SECRET_MEMBERS.contains(&folded.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_kind_of_secret_is_redacted() {
        let mut s = Secrets::default();
        s.add("sk-live-0123456789");
        s.add("short");
        let v = json!({
            "headers": {"Authorization": "Bearer abc", "X-Api-Key": "k"},
            "text": "use sk-live-0123456789 or bearer eyJhbGciOi.x1; short stays; Bearer authentication stays",
            "progressToken": "p1",
            "apiKey": 3,
        });
        assert_eq!(
            s.redact(&v),
            json!({
                "headers": {"Authorization": REDACTED, "X-Api-Key": REDACTED},
                "text": "use <REDACTED> or bearer <REDACTED>; short stays; Bearer authentication stays",
                "progressToken": "p1",
                "apiKey": 3,
            })
        );
    }
}
