//! The bounds every input is held to, so that no request can exhaust the stack or the memory.

use serde_json::Value;

/// The deepest nesting accepted in a written value, an expression or a result.
pub const MAX_DEPTH: usize = 256;

/// The largest value one mutation may write, in bytes of compact JSON.
pub const MAX_VALUE_BYTES: usize = 1024 * 1024;

/// The largest result a trace keeps; a larger one is replaced by a note of its size.
pub const MAX_TRACE_VALUE_BYTES: usize = 16 * 1024;

/// How deep `v` nests, counted without recursion so that any input can be measured.
pub fn depth(v: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        max = max.max(d);
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, d + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, d + 1))),
            _ => {}
        }
    }
    max
}

/// The size of `v` as compact JSON, counted without recursion; past `cap` the count stops and
/// says `cap + 1`.
pub fn size_up_to(v: &Value, cap: usize) -> usize {
    let mut total = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        total += match v {
            Value::Null => 4,
            Value::Bool(_) => 5,
            Value::Number(n) => n.to_string().len(),
            Value::String(s) => s.len() + 2,
            Value::Array(items) => {
                stack.extend(items);
                items.len() + 2
            }
            Value::Object(map) => {
                stack.extend(map.values());
                map.keys().map(|k| k.len() + 4).sum::<usize>() + 2
            }
        };
        if total > cap {
            return cap.saturating_add(1);
        }
    }
    total
}

/// Whether `v` is larger than `cap` bytes of compact JSON.
pub fn size_exceeds(v: &Value, cap: usize) -> bool {
    size_up_to(v, cap) > cap
}

/// Why a value is refused: too deep or too large; `None` when it is within bounds.
pub fn check_value(v: &Value) -> Option<String> {
    if depth(v) > MAX_DEPTH {
        return Some(format!("the value nests deeper than {MAX_DEPTH} levels"));
    }
    if size_exceeds(v, MAX_VALUE_BYTES) {
        return Some(format!("the value is larger than {MAX_VALUE_BYTES} bytes"));
    }
    None
}
