//! The model's JSON Schema: checking it, finding the fragment for an address, seeding `default`
//! values, and validating a written value against the fragment overlaid with live meta.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use super::path::{Path, Seg};

/// One reason a written value is refused.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Violation {
    pub path: String,
    pub keyword: String,
    pub message: String,
}

/// Problems with the schema itself: not valid 2020-12, a bad regex, a `$ref` that resolves nowhere.
pub fn problems(schema: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    each_ref(schema, "schema", &mut |at, target| match target.strip_prefix('#') {
        Some(pointer) if schema.pointer(pointer).is_some() => {}
        Some(_) => out.push((at.to_owned(), format!("$ref {target:?} resolves to nothing in this schema"))),
        None => out.push((
            at.to_owned(),
            format!("$ref {target:?} is not local; only \"#/$defs/Name\" references are resolved"),
        )),
    });
    if out.is_empty()
        && let Err(e) = jsonschema::draft202012::new(schema)
    {
        out.push(("schema".to_owned(), format!("not a valid JSON Schema 2020-12: {e}")));
    }
    out
}

fn each_ref(v: &Value, at: &str, f: &mut impl FnMut(&str, &str)) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let here = format!("{at}.{k}");
                match (k.as_str(), child) {
                    ("$ref", Value::String(target)) => f(&here, target),
                    // `enum`, `const` and `default` hold data, not schemas.
                    ("enum" | "const" | "default" | "examples", _) => {}
                    _ => each_ref(child, &here, f),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                each_ref(item, &format!("{at}[{i}]"), f);
            }
        }
        _ => {}
    }
}

/// Follows local `$ref`s (a bounded number of times, so a loop of references ends).
fn resolve<'s>(root: &'s Value, mut node: &'s Value) -> &'s Value {
    for _ in 0..32 {
        match node.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
            Some(pointer) => match root.pointer(pointer) {
                Some(target) => node = target,
                None => return node,
            },
            None => return node,
        }
    }
    node
}

/// The schema fragment describing the value at `path` (a pattern or concrete address), its
/// `$ref`s resolved; `None` when the schema says nothing about it.
pub fn fragment<'s>(root: &'s Value, path: &Path) -> Option<&'s Value> {
    let mut node = resolve(root, root);
    for seg in path.segs() {
        node = match seg {
            Seg::Key(k) => node
                .get("properties")
                .and_then(|p| p.get(k))
                .or_else(|| node.get("additionalProperties").filter(|a| a.is_object()))?,
            Seg::Index(i) => node
                .get("prefixItems")
                .and_then(|p| p.get(*i))
                .or_else(|| node.get("items").filter(|a| a.is_object()))?,
            Seg::Any => node.get("items").filter(|a| a.is_object())?,
        };
        node = resolve(root, node);
    }
    Some(node)
}

/// The fragment at `path` with live meta values laid over it (`relevant` as `x-valem-relevant`,
/// the others under their own keyword: a live `required` is a plain `"required": true`).
pub fn effective(root: &Value, path: &Path, meta: Option<&Map<String, Value>>) -> Value {
    let mut out = fragment(root, path).cloned().unwrap_or_else(|| Value::Object(Map::new()));
    if let (Value::Object(schema), Some(meta)) = (&mut out, meta) {
        for (property, value) in meta {
            let key = match property.as_str() {
                "relevant" => "x-valem-relevant",
                other => other,
            };
            schema.insert(key.to_owned(), value.clone());
        }
    }
    out
}

/// The document the schema's `default` values describe: the root's default, then each
/// property's, descending into objects.
pub fn seed(root: &Value) -> Value {
    fn fill(root: &Value, node: &Value, target: &mut Value, depth: usize) {
        let node = resolve(root, node);
        let Some(props) = node.get("properties").and_then(Value::as_object) else { return };
        if depth > crate::engine::limits::MAX_DEPTH {
            return;
        }
        for (name, prop) in props {
            let prop = resolve(root, prop);
            let Value::Object(map) = target else { return };
            if let Some(default) = prop.get("default") {
                map.entry(name.clone()).or_insert_with(|| default.clone());
            } else if prop.get("properties").is_some() {
                let mut child = map.get(name).cloned().unwrap_or_else(|| Value::Object(Map::new()));
                fill(root, prop, &mut child, depth + 1);
                if child.as_object().is_some_and(|m| !m.is_empty()) {
                    map.insert(name.clone(), child);
                }
            }
        }
    }
    let mut doc = resolve(root, root).get("default").cloned().unwrap_or_else(|| Value::Object(Map::new()));
    fill(root, root, &mut doc, 0);
    doc
}

/// Checks a value about to be written at `path` against the effective schema there.
pub fn check_write(root: &Value, path: &Path, value: &Value, meta: Option<&Map<String, Value>>) -> Vec<Violation> {
    let at = path.to_string();
    if effective(root, path, meta).get("readOnly") == Some(&Value::Bool(true)) {
        return vec![Violation { path: at.clone(), keyword: "readOnly".into(), message: format!("{at} is read-only") }];
    }
    check_value(root, path, value, meta)
}

/// Checks a value already at `path` against the effective schema there, `readOnly` aside: what
/// an evolution asks of the values a model holds.
pub fn check_value(root: &Value, path: &Path, value: &Value, meta: Option<&Map<String, Value>>) -> Vec<Violation> {
    let at = path.to_string();
    let mut schema = strip_annotations(effective(root, path, meta));
    // Keep the fragment's own `$ref`s resolvable.
    if let (Value::Object(s), Some(defs)) = (&mut schema, root.get("$defs")) {
        s.entry("$defs").or_insert_with(|| defs.clone());
    }
    let validator = match jsonschema::draft202012::new(&schema) {
        Ok(v) => v,
        Err(e) => {
            return vec![Violation {
                path: at,
                keyword: "schema".into(),
                message: format!("the effective schema is invalid: {e}"),
            }];
        }
    };
    validator
        .iter_errors(value)
        .map(|e| {
            let pointer = e.instance_path().as_str().to_owned();
            Violation {
                path: if pointer.is_empty() { at.clone() } else { format!("{at}{}", pointer_as_path(&pointer)) },
                keyword: e.kind().keyword().to_owned(),
                message: e.to_string(),
            }
        })
        .collect()
}

/// Drops the keys that only the service reads, and a live `required` flag (a boolean, where
/// 2020-12 has an array), so the validator sees plain 2020-12.
fn strip_annotations(mut schema: Value) -> Value {
    if let Value::Object(m) = &mut schema {
        m.retain(|k, v| !k.starts_with("x-valem-") && (k != "required" || !v.is_boolean()));
    }
    schema
}

/// `/items/0/name` as `.items[0].name`.
fn pointer_as_path(pointer: &str) -> String {
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .map(
            |s| if s.bytes().all(|b| b.is_ascii_digit()) && !s.is_empty() { format!("[{s}]") } else { format!(".{s}") },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_are_checked_against_fragment_and_meta() {
        let schema = json!({ "type": "object", "properties": {
            "age": { "type": "number", "minimum": 0 },
            "total": { "type": "number", "readOnly": true },
            "items": { "type": "array", "items": { "$ref": "#/$defs/Item" } }
        }, "$defs": { "Item": { "type": "object", "properties": { "qty": { "type": "integer" } } } } });
        let p = |s| Path::parse(s).unwrap();
        assert!(check_write(&schema, &p("$.age"), &json!(3), None).is_empty());
        assert_eq!(check_write(&schema, &p("$.age"), &json!(-1), None)[0].keyword, "minimum");
        assert_eq!(check_write(&schema, &p("$.age"), &json!("x"), None)[0].keyword, "type");
        assert_eq!(check_write(&schema, &p("$.total"), &json!(1), None)[0].keyword, "readOnly");
        assert_eq!(check_write(&schema, &p("$.items[0].qty"), &json!(1.5), None)[0].keyword, "type");
        let meta = json!({ "maximum": 10 });
        assert_eq!(check_write(&schema, &p("$.age"), &json!(11), meta.as_object())[0].keyword, "maximum");
    }

    #[test]
    fn schema_problems_are_found() {
        assert!(problems(&json!({ "type": "object" })).is_empty());
        assert!(!problems(&json!({ "type": "nonsense" })).is_empty());
        assert!(!problems(&json!({ "properties": { "a": { "$ref": "#/$defs/Missing" } } })).is_empty());
        assert!(!problems(&json!({ "properties": { "a": { "type": "string", "pattern": "([" } } })).is_empty());
    }
}
