//! Opaque cursors over a list: the offset of the next page, base64-encoded.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value};

use crate::jsonrpc::RpcError;

/// One page of `items` under `key`, starting where the request's cursor says, with `nextCursor`
/// when more follow. A cursor this server did not issue is -32602.
pub(super) fn page(items: Vec<Value>, key: &str, params: &Option<Value>, size: usize) -> Result<Value, RpcError> {
    let start = match params.as_ref().and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => 0,
        Some(c) => decode(c).filter(|&n| n < items.len()).ok_or_else(|| RpcError::invalid_params("Invalid cursor"))?,
    };
    let end = (start + size).min(items.len());
    let more = end < items.len();
    let mut result = Map::new();
    result.insert(key.into(), Value::Array(items.into_iter().skip(start).take(end - start).collect()));
    if more {
        result.insert("nextCursor".into(), Value::String(URL_SAFE_NO_PAD.encode(format!("o{end}"))));
    }
    Ok(Value::Object(result))
}

fn decode(cursor: &Value) -> Option<usize> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor.as_str()?).ok()?;
    std::str::from_utf8(&bytes).ok()?.strip_prefix('o')?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pages_follow_cursors_to_the_end() {
        let items: Vec<Value> = (0..5).map(|i| json!(i)).collect();
        let first = page(items.clone(), "tools", &None, 2).unwrap();
        assert_eq!(first["tools"], json!([0, 1]));
        let next = Some(json!({ "cursor": first["nextCursor"] }));
        let second = page(items.clone(), "tools", &next, 2).unwrap();
        assert_eq!(second["tools"], json!([2, 3]));
        let last = page(items.clone(), "tools", &Some(json!({ "cursor": second["nextCursor"] })), 2).unwrap();
        assert_eq!(last, json!({ "tools": [4] }));
        for bad in [json!("zz"), json!(3), json!("bzk5OQ")] {
            assert!(page(items.clone(), "tools", &Some(json!({ "cursor": bad })), 2).is_err());
        }
    }
}
