//! Values that differ between runs or machines, replaced by `<NAME>` placeholders in what the
//! server sends, and filled back into what the client sends. A placeholder is a literal value the
//! harness knows (the root of a repository) or a pattern (timestamps, hashes), and replaces a
//! match only at token boundaries, never a field. Secrets are redacted first (see
//! [`redact`](crate::redact)).
//!
//! ```
//! use serde_json::json;
//! use tooltable_golden::placeholders::Placeholders;
//!
//! let placeholders = Placeholders::standard().literal("ROOT", "/home/me/repo");
//! let sent_by_server = json!({ "file": "/home/me/repo/notes.yaml", "at": "2026-03-01T12:00:00Z" });
//! let written = placeholders.normalize(&sent_by_server);
//! assert_eq!(written, json!({ "file": "<ROOT>/notes.yaml", "at": "<TIMESTAMP>" }));
//!
//! let recorded_request = json!({ "params": { "arguments": { "root": "<ROOT>" } } });
//! assert_eq!(placeholders.fill(&recorded_request)["params"]["arguments"]["root"], "/home/me/repo");
//! ```

use regex::Regex;
use serde_json::Value;

use crate::redact::Secrets;

/// The pattern every session knows: an RFC 3339 timestamp in UTC, written `<TIMESTAMP>`.
pub const TIMESTAMP: (&str, &str) = ("TIMESTAMP", r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})");

/// One declared placeholder.
#[derive(Debug, Clone)]
pub enum Placeholder {
    /// A value known to the harness, such as a path.
    Literal {
        /// Written `<NAME>`.
        name: String,
        /// What it stands for.
        value: String,
    },
    /// Every match of a regular expression.
    Pattern {
        /// Written `<NAME>`.
        name: String,
        /// What it matches.
        regex: Regex,
    },
}

/// The placeholders and secrets of one server's sessions.
#[derive(Debug, Clone, Default)]
pub struct Placeholders {
    list: Vec<Placeholder>,
    secrets: Secrets,
}

impl Placeholders {
    /// What every session knows: `<TIMESTAMP>`, and the secrets of this process's environment.
    pub fn standard() -> Self {
        let placeholders = Placeholders { list: Vec::new(), secrets: Secrets::from_env() };
        placeholders.pattern(TIMESTAMP.0, TIMESTAMP.1).expect("a valid pattern")
    }

    /// A value the test knows, written `<NAME>`.
    pub fn literal(mut self, name: &str, value: &str) -> Self {
        self.list.retain(|p| p.name() != name);
        self.list.push(Placeholder::Literal { name: name.to_owned(), value: value.to_owned() });
        self
    }

    /// A pattern placeholder; the pattern is a regular expression. One of the same name goes.
    pub fn pattern(mut self, name: &str, pattern: &str) -> Result<Self, regex::Error> {
        let regex = Regex::new(pattern)?;
        self.list.retain(|p| p.name() != name);
        self.list.push(Placeholder::Pattern { name: name.to_owned(), regex });
        Ok(self)
    }

    /// The secrets redacted from what is recorded and compared.
    pub fn secrets_mut(&mut self) -> &mut Secrets {
        &mut self.secrets
    }

    /// What the server sent, secrets redacted and machine-specific values replaced by their
    /// placeholders.
    pub fn normalize(&self, v: &Value) -> Value {
        map_strings(&self.secrets.redact(v), &|s| self.normalize_str(s))
    }

    /// What a client sent, as a recording writes it: secrets redacted and literal values as
    /// their placeholders (which [`fill`](Placeholders::fill) puts back; a pattern is not, so it
    /// is left as sent).
    pub fn normalize_sent(&self, v: &Value) -> Value {
        let literals = Placeholders { list: self.literals().cloned().collect(), secrets: Secrets::default() };
        map_strings(&self.secrets.redact(v), &|s| literals.normalize_str(s))
    }

    fn literals(&self) -> impl Iterator<Item = &Placeholder> {
        self.list.iter().filter(|p| matches!(p, Placeholder::Literal { .. }))
    }

    /// What the client sends, with literal placeholders filled in.
    pub fn fill(&self, v: &Value) -> Value {
        map_strings(v, &|s| {
            let mut s = s.to_owned();
            for p in self.literals() {
                if let Placeholder::Literal { name, value } = p {
                    s = s.replace(&format!("<{name}>"), value);
                }
            }
            s
        })
    }

    fn normalize_str(&self, s: &str) -> String {
        let mut s = s.to_owned();
        for p in &self.list {
            s = match p {
                Placeholder::Literal { name, value } if !value.is_empty() => replace_bounded(
                    &s,
                    &format!("<{name}>"),
                    s.match_indices(value.as_str()).map(|(i, m)| (i, i + m.len())),
                ),
                Placeholder::Literal { .. } => s,
                Placeholder::Pattern { name, regex } => {
                    replace_bounded(&s, &format!("<{name}>"), regex.find_iter(&s).map(|m| (m.start(), m.end())))
                }
            };
        }
        s
    }
}

impl Placeholder {
    fn name(&self) -> &str {
        match self {
            Placeholder::Literal { name, .. } | Placeholder::Pattern { name, .. } => name,
        }
    }
}

/// Replaces the given spans of `s` that sit at token boundaries: no letter, digit or `_` just
/// before or just after, so `<HASH>` never takes part of a longer word.
fn replace_bounded(s: &str, with: &str, spans: impl Iterator<Item = (usize, usize)>) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (start, end) in spans {
        if start < last || word(s[..start].chars().next_back()) || word(s[end..].chars().next()) {
            continue;
        }
        out.push_str(&s[last..start]);
        out.push_str(with);
        last = end;
    }
    out.push_str(&s[last..]);
    out
}

fn map_strings(v: &Value, f: &dyn Fn(&str) -> String) -> Value {
    match v {
        Value::String(s) => Value::String(f(s)),
        Value::Array(items) => Value::Array(items.iter().map(|i| map_strings(i, f)).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (f(k), map_strings(v, f))).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn replaces_at_token_boundaries_only() {
        let p = Placeholders::default()
            .literal("ROOT", "/tmp/x1/full")
            .pattern("TIMESTAMP", r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")
            .unwrap()
            .pattern("HASH", "[0-9a-f]{8}")
            .unwrap();
        let v = json!({
            "path": "/tmp/x1/full/entities/User.yaml",
            "other": "/tmp/x1/fuller",
            "at": "2026-11-30T04:00:00.123Z",
            "hash": "deadbeef",
            "longer": "deadbeef00",
            "text": "file /tmp/x1/full/a at 2026-01-01T00:00:00Z",
        });
        assert_eq!(
            p.normalize(&v),
            json!({
                "path": "<ROOT>/entities/User.yaml",
                "other": "/tmp/x1/fuller",
                "at": "<TIMESTAMP>",
                "hash": "<HASH>",
                "longer": "deadbeef00",
                "text": "file <ROOT>/a at <TIMESTAMP>",
            })
        );
        assert_eq!(p.fill(&json!({ "root": "<ROOT>/a" })), json!({ "root": "/tmp/x1/full/a" }));
    }
}
