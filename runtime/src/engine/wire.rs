//! What every method family's wire types share.

use serde::Serialize;
use serde_json::Value;

/// An empty object: the result of `ping`, `logging/setLevel`, `tasks/update`..., and a
/// capability that has no settings.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub(crate) struct Empty {}

/// A typed value as JSON. Every wire type is plain data (strings, numbers, JSON values), which
/// always serializes.
pub(crate) fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
