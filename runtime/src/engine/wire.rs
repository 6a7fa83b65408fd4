//! What every method family's wire types share.

use serde::Serialize;
use serde_json::{Map, Value};

/// An empty object: the result of `ping`, `logging/setLevel`, `tasks/update`..., and a
/// capability that has no settings.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub(crate) struct Empty {}

/// The result of a request as its response carries it: written by serde, or by hand where a
/// type knows a quicker way to the same text.
pub(crate) trait WireResult: Serialize {
    /// Appends the result's JSON to `out`: the text serde would write.
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(out, self)
    }
}

impl WireResult for Value {}

impl WireResult for Empty {}

/// A typed value as JSON. Every wire type is plain data (strings, numbers, JSON values), which
/// always serializes.
pub(crate) fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// An object's member, found by comparing names: the params of a request, their `_meta` and a
/// client's capabilities have few, and comparing costs less than hashing the name to look it up.
pub(crate) fn member<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.iter().find_map(|(k, v)| (k == key).then_some(v))
}
