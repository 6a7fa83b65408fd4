//! `get_state`'s token economy: keep only some subtrees, then cap the nesting.

use serde_json::{Map, Value, json};

use crate::engine::path::Path;

/// A document holding only the values at `paths`, each at its own address; absent ones skipped.
pub fn select(doc: &Value, paths: &[Path]) -> Value {
    let mut out = Value::Object(Map::new());
    for path in paths {
        if path.is_root() {
            return doc.clone();
        }
        if let Some(v) = path.get(doc) {
            let _ = path.set(&mut out, v.clone());
        }
    }
    out
}

/// Containers deeper than `depth` become `"<object: N fields>"` / `"<array: N items>"`
/// (depth 0 collapses the root itself).
pub fn cap(doc: &Value, depth: usize) -> Value {
    match doc {
        Value::Object(m) if depth == 0 => json!(format!("<object: {} fields>", m.len())),
        Value::Array(a) if depth == 0 => json!(format!("<array: {} items>", a.len())),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), cap(v, depth - 1))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(|v| cap(v, depth - 1)).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_then_cap() {
        let doc = json!({ "a": { "b": [1, 2, 3], "c": 1 }, "d": 2 });
        let a = Path::parse("$.a.b").unwrap();
        let missing = Path::parse("$.zz").unwrap();
        assert_eq!(select(&doc, &[a, missing]), json!({ "a": { "b": [1, 2, 3] } }));
        assert_eq!(cap(&doc, 1), json!({ "a": "<object: 2 fields>", "d": 2 }));
        assert_eq!(cap(&doc, 0), json!("<object: 2 fields>"));
    }
}
