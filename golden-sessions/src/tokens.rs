//! Opaque values a server hands out and a client hands back, written in a session as numbered
//! placeholders so that it replays against a server that makes new ones each run: cursors
//! (`nextCursor`, `cursor`) as `<CURSOR_1>`, a multi-round request's `requestState` as
//! `<REQUEST_STATE_1>`, task ids as `<TASK_1>`, session ids as `<SESSION_1>`, and the id of each
//! request the server sends the client (sampling, elicitation, roots) as `<REQUEST_ID_1>`. The
//! replayer binds each to what the server sends the first time (see [`matching`](crate::matching)).
//!
//! ```
//! use serde_json::json;
//! use tooltable_golden::matching::Bindings;
//! use tooltable_golden::tokens::Tokens;
//!
//! let mut tokens = Tokens::from_bindings(&Bindings::default());
//! let page = tokens.received(&json!({ "id": 1, "result": { "tools": [], "nextCursor": "c-81f2" } }));
//! assert_eq!(page["result"]["nextCursor"], "<CURSOR_1>");
//! let next = tokens.sent(&json!({ "id": 2, "method": "tools/list", "params": { "cursor": "c-81f2" } }));
//! assert_eq!(next["params"]["cursor"], "<CURSOR_1>", "the value handed back is named alike");
//! ```

use serde_json::{Map, Value};

use crate::matching::Bindings;

/// The keys whose string value is opaque, and the placeholder name each is written as.
pub const OPAQUE: &[(&str, &str)] = &[
    ("nextCursor", "CURSOR"),
    ("cursor", "CURSOR"),
    ("requestState", "REQUEST_STATE"),
    ("taskId", "TASK"),
    ("sessionId", "SESSION"),
];

/// The placeholder name of the id of a request the server sends.
pub const REQUEST_ID: &str = "REQUEST_ID";

/// The opaque values met so far in a session, each with its placeholder.
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    named: Vec<(Value, String)>,
}

impl Tokens {
    /// The placeholders a replay bound, so that an observed session names the same values alike.
    pub fn from_bindings(bindings: &Bindings) -> Self {
        Tokens { named: bindings.iter().map(|(name, value)| (value.clone(), name.to_owned())).collect() }
    }

    /// A message the server sent, with each opaque value as its placeholder (a new one the first
    /// time the value is met).
    pub fn received(&mut self, msg: &Value) -> Value {
        let mut msg = self.walk(msg, true);
        if msg.get("method").is_some()
            && let Some(id) = msg.get_mut("id")
        {
            *id = self.name(id, REQUEST_ID, true);
        }
        msg
    }

    /// A message the client sent, with each opaque value the server handed out as its
    /// placeholder; the answer to a request of the server carries that request's placeholder.
    pub fn sent(&mut self, msg: &Value) -> Value {
        let mut msg = self.walk(msg, false);
        if msg.get("method").is_none()
            && let Some(id) = msg.get_mut("id")
        {
            *id = self.name(id, REQUEST_ID, false);
        }
        msg
    }

    fn walk(&mut self, v: &Value, create: bool) -> Value {
        match v {
            Value::Array(items) => Value::Array(items.iter().map(|i| self.walk(i, create)).collect()),
            Value::Object(map) => {
                let mut out = Map::with_capacity(map.len());
                for (key, value) in map {
                    let kind = OPAQUE.iter().find(|(k, _)| k == key).map(|(_, kind)| *kind);
                    let value = match (kind, value) {
                        (Some(kind), Value::String(_)) => self.name(value, kind, create),
                        _ => self.walk(value, create),
                    };
                    out.insert(key.clone(), value);
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }

    /// The placeholder of `value`: the one it has, else (when `create`) the next of `kind`;
    /// else the value itself.
    fn name(&mut self, value: &Value, kind: &str, create: bool) -> Value {
        let prefix = format!("{kind}_");
        let of_kind = |name: &str| name.strip_prefix(&prefix).is_some_and(|n| n.parse::<usize>().is_ok());
        if let Some((_, name)) = self.named.iter().find(|(v, n)| v == value && of_kind(n)) {
            return Value::String(format!("<{name}>"));
        }
        if !create {
            return value.clone();
        }
        let taken = self.named.iter().filter_map(|(_, n)| n.strip_prefix(&prefix)?.parse::<usize>().ok()).max();
        let name = format!("{kind}_{}", taken.unwrap_or(0) + 1);
        self.named.push((value.clone(), name.clone()));
        Value::String(format!("<{name}>"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_each_value_once_and_names_it_when_it_comes_back() {
        let mut t = Tokens::default();
        let page = t.received(&json!({"id": 2, "result": {"tools": [], "nextCursor": "abc"}}));
        assert_eq!(page, json!({"id": 2, "result": {"tools": [], "nextCursor": "<CURSOR_1>"}}));
        let next = t.sent(&json!({"id": 3, "method": "tools/list", "params": {"cursor": "abc"}}));
        assert_eq!(next["params"]["cursor"], "<CURSOR_1>");
        assert_eq!(next["id"], 3, "the client's own ids stay");
        let asked = t.received(&json!({"id": 0, "method": "roots/list"}));
        assert_eq!(asked["id"], "<REQUEST_ID_1>");
        assert_eq!(t.sent(&json!({"id": 0, "result": {"roots": []}}))["id"], "<REQUEST_ID_1>");
        assert_eq!(t.sent(&json!({"id": 1, "result": {}}))["id"], 1, "an id the server never used stays");
        assert_eq!(t.received(&json!({"nextCursor": "def"}))["nextCursor"], "<CURSOR_2>");
    }
}
