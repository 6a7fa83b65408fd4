//! Comparing what a server sent with what a session recorded: structurally, the keys of an object
//! in any order, and each `<NAME_N>` placeholder of the recording (a cursor, a request id, a
//! `requestState`: see [`tokens`](crate::tokens)) standing for the value the server sent where
//! the placeholder was first met, and for that same value afterwards.
//!
//! ```
//! use serde_json::json;
//! use tooltable_golden::matching::{Bindings, matches};
//!
//! let recorded = json!({ "id": 2, "result": { "tools": [], "nextCursor": "<CURSOR_1>" } });
//! let mut bindings = Bindings::default();
//! let sent = json!({ "result": { "nextCursor": "c-81f2", "tools": [] }, "id": 2 });
//! assert!(matches(&recorded, &sent, &mut bindings), "keys in any order; the placeholder binds");
//! assert_eq!(bindings.get("CURSOR_1"), Some(&json!("c-81f2")));
//!
//! let next_page = json!({ "method": "tools/list", "params": { "cursor": "<CURSOR_1>" } });
//! assert_eq!(bindings.fill(&next_page)["params"]["cursor"], "c-81f2", "what the client sends back");
//! let other = json!({ "id": 2, "result": { "tools": [], "nextCursor": "c-0000" } });
//! assert!(!matches(&recorded, &other, &mut bindings), "a bound placeholder stands for its value only");
//! ```

use regex::Regex;
use serde_json::Value;

/// The values the placeholders of a session stand for in one replay.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bindings(Vec<(String, Value)>);

impl Bindings {
    /// The value `name` stands for, once met.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Every placeholder met, in the order met.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v))
    }

    fn bind(&mut self, name: &str, value: Value) {
        self.0.push((name.to_owned(), value));
    }

    /// A message to send with each placeholder met replaced by its value: a string that is only
    /// the placeholder becomes the value itself (a number stays a number).
    pub fn fill(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => match whole(s).and_then(|name| self.get(name)) {
                Some(value) => value.clone(),
                None => Value::String(self.fill_str(s)),
            },
            Value::Array(items) => Value::Array(items.iter().map(|i| self.fill(i)).collect()),
            Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (self.fill_str(k), self.fill(v))).collect()),
            other => other.clone(),
        }
    }

    fn fill_str(&self, s: &str) -> String {
        token_regex()
            .replace_all(s, |c: &regex::Captures<'_>| match self.get(&c[1]) {
                Some(Value::String(value)) => value.clone(),
                Some(value) => value.to_string(),
                None => c[0].to_owned(),
            })
            .into_owned()
    }
}

/// `<NAME_N>`: upper-case letters, digits and `_`, ending in `_` and a number.
fn token_regex() -> &'static Regex {
    static TOKEN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    TOKEN.get_or_init(|| Regex::new(r"<([A-Z][A-Z0-9_]*_[0-9]+)>").expect("a valid pattern"))
}

/// Whether `name` has the shape of a placeholder [`Bindings`] binds (`REQUEST_STATE_1`).
fn is_token_name(name: &str) -> bool {
    let Some((stem, number)) = name.rsplit_once('_') else { return false };
    name.starts_with(|c: char| c.is_ascii_uppercase())
        && stem.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && !number.is_empty()
        && number.chars().all(|c| c.is_ascii_digit())
}

/// The name of the placeholder `s` is, when it is one and nothing else.
fn whole(s: &str) -> Option<&str> {
    let name = s.strip_prefix('<')?.strip_suffix('>')?;
    is_token_name(name).then_some(name)
}

/// Whether `actual` is what `expected` records, binding the placeholders met for the first time.
/// When it is not, `bindings` is left as it was.
pub fn matches(expected: &Value, actual: &Value, bindings: &mut Bindings) -> bool {
    let mut trial = bindings.clone();
    let ok = walk(expected, actual, &mut trial);
    if ok {
        *bindings = trial;
    }
    ok
}

fn walk(expected: &Value, actual: &Value, b: &mut Bindings) -> bool {
    match (expected, actual) {
        (Value::String(e), a) if whole(e).is_some() => {
            let name = whole(e).unwrap_or_default();
            match b.get(name) {
                Some(bound) => same(bound, a),
                None => {
                    b.bind(name, a.clone());
                    true
                }
            }
        }
        (Value::String(e), Value::String(a)) => strings(e, a, b),
        (Value::Array(e), Value::Array(a)) => e.len() == a.len() && e.iter().zip(a).all(|(e, a)| walk(e, a, b)),
        (Value::Object(e), Value::Object(a)) => {
            e.len() == a.len() && e.iter().all(|(k, e)| a.get(k).is_some_and(|a| walk(e, a, b)))
        }
        (e, a) => e == a,
    }
}

/// Whether a bound value is `actual`: equal, or one of them a string holding the other's JSON
/// text (a placeholder first met inside a text, as a tool's text block writes its structured
/// result, stands for the number there too).
fn same(bound: &Value, actual: &Value) -> bool {
    match (bound, actual) {
        (Value::String(text), other) | (other, Value::String(text)) if !other.is_string() => {
            serde_json::from_str::<Value>(text).is_ok_and(|read| read == *other)
        }
        _ => bound == actual,
    }
}

/// A recorded string against a sent one: equal, or equal once each placeholder in it stands for
/// a part of the sent one (the same part wherever the same name is).
fn strings(expected: &str, actual: &str, b: &mut Bindings) -> bool {
    if !token_regex().is_match(expected) {
        return expected == actual;
    }
    let mut pattern = String::from("^");
    let mut names = Vec::new();
    let mut last = 0;
    for c in token_regex().captures_iter(expected) {
        let m = c.get(0).expect("a whole match");
        pattern.push_str(&regex::escape(&expected[last..m.start()]));
        match b.get(&c[1]) {
            Some(Value::String(bound)) => pattern.push_str(&regex::escape(bound)),
            Some(bound) => pattern.push_str(&regex::escape(&bound.to_string())),
            None => {
                pattern.push_str("(.+?)");
                names.push(c[1].to_owned());
            }
        }
        last = m.end();
    }
    pattern.push_str(&regex::escape(&expected[last..]));
    pattern.push('$');
    let Ok(regex) = Regex::new(&pattern) else { return false };
    let Some(found) = regex.captures(actual) else { return false };
    for (i, name) in names.iter().enumerate() {
        let value = Value::String(found[i + 1].to_owned());
        match b.get(name) {
            Some(bound) if *bound != value => return false,
            Some(_) => {}
            None => b.bind(name, value),
        }
    }
    true
}

/// What came back in one step, paired with what the session recorded for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Pairing {
    /// Whether each recorded message found its own among what came back, and nothing was left.
    pub matched: bool,
    /// What came back, each with the recorded message it matched (by index): in the recording's
    /// order, an unmatched message in the place of the next unmatched recorded one, the rest
    /// after, so that a diff against the recording shows a changed message as its changed lines.
    pub aligned: Vec<(Value, Option<usize>)>,
}

/// Pairs each recorded message of a step with the first message that came back and matches it
/// (the messages of a step travel on different streams over HTTP, so their order is free).
pub fn pair(expected: &[Value], actual: &[Value], bindings: &mut Bindings) -> Pairing {
    let mut used = vec![false; actual.len()];
    let mut slots: Vec<Option<usize>> = Vec::with_capacity(expected.len());
    for e in expected {
        let found = (0..actual.len()).find(|&i| !used[i] && matches(e, &actual[i], bindings));
        if let Some(i) = found {
            used[i] = true;
        }
        slots.push(found);
    }
    let matched = slots.iter().all(Option::is_some) && used.iter().all(|u| *u);
    let mut rest = (0..actual.len()).filter(|&i| !used[i]);
    let mut aligned: Vec<(Value, Option<usize>)> = Vec::with_capacity(actual.len());
    for (e, slot) in slots.iter().enumerate() {
        match slot {
            Some(i) => aligned.push((actual[*i].clone(), Some(e))),
            None => aligned.extend(rest.next().map(|i| (actual[i].clone(), None))),
        }
    }
    aligned.extend(rest.map(|i| (actual[i].clone(), None)));
    Pairing { matched, aligned }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_bind_once_and_hold() {
        let mut b = Bindings::default();
        assert!(matches(&json!({"id": "<REQUEST_ID_1>", "m": "x"}), &json!({"m": "x", "id": 7}), &mut b));
        assert_eq!(b.get("REQUEST_ID_1"), Some(&json!(7)));
        assert!(!matches(&json!({"id": "<REQUEST_ID_1>"}), &json!({"id": 8}), &mut b));
        assert!(matches(&json!("tasks/<TASK_1>/x"), &json!("tasks/abc/x"), &mut b));
        assert!(!matches(&json!("<TASK_1>-<TASK_1>"), &json!("abc-abd"), &mut b));
        assert!(matches(&json!("<TASK_1>-<TASK_1>"), &json!("abc-abc"), &mut b));
        assert!(!matches(&json!("tasks/<TASK_2>/x"), &json!("other"), &mut b));
        assert_eq!(b.get("TASK_2"), None, "a failed match binds nothing");
        assert!(matches(&json!("<not a token>"), &json!("<not a token>"), &mut b));
        assert!(!matches(&json!({"a": 1}), &json!({"a": 1, "b": 2}), &mut b));
        assert!(matches(&json!(["left <LEFT_1> s", "<LEFT_1>"]), &json!(["left 597 s", 597]), &mut b));
        assert!(!matches(&json!("<LEFT_1>"), &json!(598), &mut b), "the number its text is, and no other");
        assert!(!matches(&json!("<LEFT_1>"), &json!([597]), &mut b));
        assert!(matches(&json!(["<SIZE_1>", "size <SIZE_1>"]), &json!([12, "size 12"]), &mut b));
        assert!(matches(&json!("<SIZE_1>"), &json!("12"), &mut b), "a number bound first, met as its text");
        assert_eq!(
            b.fill(&json!({"id": "<REQUEST_ID_1>", "uri": "t/<TASK_1>", "x": "<CURSOR_9>"})),
            json!({"id": 7, "uri": "t/abc", "x": "<CURSOR_9>"})
        );
    }

    #[test]
    fn pairs_in_any_order_and_aligns_the_rest() {
        let mut b = Bindings::default();
        let expected = [json!({"n": 1}), json!({"n": 2}), json!({"n": 3})];
        let p = pair(&expected, &[json!({"n": 3}), json!({"n": 1}), json!({"n": 2})], &mut b);
        assert!(p.matched);
        assert_eq!(p.aligned, [(json!({"n": 1}), Some(0)), (json!({"n": 2}), Some(1)), (json!({"n": 3}), Some(2))]);
        let p = pair(&expected, &[json!({"n": 9}), json!({"n": 3}), json!({"n": 1}), json!({"n": 8})], &mut b);
        assert!(!p.matched);
        let shown: Vec<(Value, Option<usize>)> = vec![
            (json!({"n": 1}), Some(0)),
            (json!({"n": 9}), None),
            (json!({"n": 3}), Some(2)),
            (json!({"n": 8}), None),
        ];
        assert_eq!(p.aligned, shown);
    }
}
