//! Opaque cursors over a list: the offset of the next page, base64-encoded.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::jsonrpc::RpcError;
use crate::engine::params::{self, Field};

/// The params of a list method.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ListParams {
    cursor: Field<String>,
}

/// One page of a list: its items under the list's key, and the cursor of the next page.
#[derive(Debug)]
pub(crate) struct Page<T> {
    key: &'static str,
    items: Vec<T>,
    next_cursor: Option<String>,
}

impl<T: Serialize> Serialize for Page<T> {
    fn serialize<Ser: serde::Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(1 + usize::from(self.next_cursor.is_some())))?;
        map.serialize_entry(self.key, &self.items)?;
        if let Some(cursor) = &self.next_cursor {
            map.serialize_entry("nextCursor", cursor)?;
        }
        map.end()
    }
}

/// One page of `items` under `key`, starting where the request's cursor says, with `nextCursor`
/// when more follow. A cursor this server did not issue is -32602.
pub(crate) fn page<T>(
    items: Vec<T>,
    key: &'static str,
    params: Option<Value>,
    size: usize,
) -> Result<Page<T>, RpcError> {
    let start = match params::read::<ListParams>(params).cursor {
        Field::Absent | Field::Null => 0,
        Field::Given(cursor) => {
            decode(&cursor).filter(|&n| n < items.len()).ok_or_else(|| RpcError::invalid_params("Invalid cursor"))?
        }
        Field::Invalid => return Err(RpcError::invalid_params("Invalid cursor")),
    };
    let end = (start + size).min(items.len());
    let next_cursor = (end < items.len()).then(|| URL_SAFE_NO_PAD.encode(format!("o{end}")));
    let items = items.into_iter().skip(start).take(end - start).collect();
    Ok(Page { key, items, next_cursor })
}

fn decode(cursor: &str) -> Option<usize> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    std::str::from_utf8(&bytes).ok()?.strip_prefix('o')?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn page_of(items: &[i32], params: Option<Value>) -> Result<Value, RpcError> {
        page(items.to_vec(), "tools", params, 2).map(|p| serde_json::to_value(p).unwrap())
    }

    #[test]
    fn pages_follow_cursors_to_the_end() {
        let items = [0, 1, 2, 3, 4];
        let first = page_of(&items, None).unwrap();
        assert_eq!(first["tools"], json!([0, 1]));
        let second = page_of(&items, Some(json!({ "cursor": first["nextCursor"] }))).unwrap();
        assert_eq!(second["tools"], json!([2, 3]));
        let last = page_of(&items, Some(json!({ "cursor": second["nextCursor"] }))).unwrap();
        assert_eq!(last, json!({ "tools": [4] }));
        for bad in [json!("zz"), json!(3), json!("bzk5OQ")] {
            assert!(page_of(&items, Some(json!({ "cursor": bad }))).is_err());
        }
    }
}
