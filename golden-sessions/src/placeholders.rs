//! Values that differ between runs or machines, replaced by `<NAME>` placeholders in what the
//! server sends, and filled back into what the client sends. A placeholder is a literal value the
//! harness knows (the root of a repository) or a pattern (timestamps, hashes), and replaces a
//! match only at token boundaries, never a field.

use regex::Regex;
use serde_json::Value;

/// One declared placeholder.
pub enum Placeholder {
    Literal { name: String, value: String },
    Pattern { name: String, regex: Regex },
}

#[derive(Default)]
pub struct Placeholders(Vec<Placeholder>);

impl Placeholders {
    pub fn literal(mut self, name: &str, value: &str) -> Self {
        self.0.push(Placeholder::Literal { name: name.to_owned(), value: value.to_owned() });
        self
    }

    /// A pattern placeholder; the pattern is a regular expression.
    pub fn pattern(mut self, name: &str, pattern: &str) -> Result<Self, regex::Error> {
        self.0.push(Placeholder::Pattern { name: name.to_owned(), regex: Regex::new(pattern)? });
        Ok(self)
    }

    /// What the server sent, with machine-specific values replaced by their placeholders.
    pub fn normalize(&self, v: &Value) -> Value {
        map_strings(v, &|s| self.normalize_str(s))
    }

    /// What the client sends, with literal placeholders filled in.
    pub fn fill(&self, v: &Value) -> Value {
        map_strings(v, &|s| {
            let mut s = s.to_owned();
            for p in &self.0 {
                if let Placeholder::Literal { name, value } = p {
                    s = s.replace(&format!("<{name}>"), value);
                }
            }
            s
        })
    }

    fn normalize_str(&self, s: &str) -> String {
        let mut s = s.to_owned();
        for p in &self.0 {
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
