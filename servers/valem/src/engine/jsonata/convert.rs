//! Values across the seam: `serde_json::Value` in, `JValue` out and back, with numbers printed
//! as JavaScript prints them and a bound on nesting (a result nested without end is an error,
//! not a stack overflow).

use indexmap::IndexMap;
use jsonata_core::value::{JArray, JValue};
use serde_json::{Map, Value};

use crate::engine::limits::MAX_DEPTH;

/// Inputs are checked against [`MAX_DEPTH`](crate::engine::limits::MAX_DEPTH) where they enter the service, so this recursion is
/// bounded.
pub fn to_jvalue(v: &Value) -> JValue {
    match v {
        Value::Null => JValue::Null,
        Value::Bool(b) => JValue::Bool(*b),
        Value::Number(n) => JValue::Number(n.as_f64().unwrap_or(0.0)),
        Value::String(s) => JValue::String(s.as_str().into()),
        Value::Array(items) => {
            let flat = !items.iter().any(Value::is_array);
            JValue::Array(JArray::new_flat(items.iter().map(to_jvalue).collect(), flat))
        }
        Value::Object(map) => {
            let m: IndexMap<String, JValue> = map.iter().map(|(k, v)| (k.clone(), to_jvalue(v))).collect();
            JValue::object(m)
        }
    }
}

/// An object of only the named root fields of `v` (all of `v` when it is not an object).
pub fn fields_to_jvalue(v: &Value, fields: &[String]) -> JValue {
    let Value::Object(map) = v else { return to_jvalue(v) };
    let m: IndexMap<String, JValue> =
        fields.iter().filter_map(|f| map.get(f).map(|item| (f.clone(), to_jvalue(item)))).collect();
    JValue::object(m)
}

/// `None` for undefined; functions and regexes (not JSON) become null, as JSON.stringify does
/// inside containers.
pub fn from_jvalue(v: &JValue) -> Result<Option<Value>, String> {
    match v {
        JValue::Undefined => Ok(None),
        other => to_json(other, 0).map(Some),
    }
}

fn to_json(v: &JValue, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("the result nests deeper than {MAX_DEPTH} levels"));
    }
    Ok(match v {
        JValue::Bool(b) => Value::Bool(*b),
        JValue::Number(n) => tooltable::transport::numbers::number(*n),
        JValue::String(s) => Value::String(s.to_string()),
        JValue::Array(items) => Value::Array(
            items
                .iter()
                .filter(|i| !matches!(i, JValue::Undefined))
                .map(|i| to_json(i, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        JValue::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (k, item) in map.iter().filter(|(_, i)| !matches!(i, JValue::Undefined)) {
                out.insert(k.clone(), to_json(item, depth + 1)?);
            }
            Value::Object(out)
        }
        _ => Value::Null,
    })
}
