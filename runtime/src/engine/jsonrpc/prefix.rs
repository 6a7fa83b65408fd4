//! The id of a message of which only the start was read (an over-long line), so its error can
//! name the request the client waits on. serde_json reads the object's members in order; the
//! reader records the id when it meets it and stops there, before the part that was cut off.

use std::fmt;

use super::RequestId;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

/// The top-level `id` of the JSON object `head` starts, when it comes before the cut: a
/// transport that skips an over-long message reads its start, so that the error it answers names
/// the request the client waits on.
///
/// ```
/// use tooltable::transport::jsonrpc::{RequestId, request_id_of_prefix};
///
/// let head = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"x":"xxx"#;
/// assert_eq!(request_id_of_prefix(head), Some(RequestId::Number(7)));
/// ```
pub fn request_id_of_prefix(head: &[u8]) -> Option<RequestId> {
    let mut found = None;
    // Always an error: the reader stops at the id, or runs into the cut.
    let _ = FindId(&mut found).deserialize(&mut serde_json::Deserializer::from_slice(head));
    found.and_then(RequestId::from_json)
}

struct FindId<'a>(&'a mut Option<Value>);

impl<'de> DeserializeSeed<'de> for FindId<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FindId<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "id" {
                *self.0 = Some(map.next_value()?);
                return Err(de::Error::custom("found the id"));
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_found_before_the_cut() {
        let head = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"x":"xxxxxxx"#;
        assert_eq!(request_id_of_prefix(head), Some(RequestId::Number(7)));
        assert_eq!(request_id_of_prefix(br#"{"id":"a\"b","params":{"#), Some(RequestId::String("a\"b".into())));
        assert_eq!(
            request_id_of_prefix(br#"{"params":{"id":1,"x":"xxxx"#),
            None,
            "an id inside params is not the request's"
        );
        assert_eq!(
            request_id_of_prefix(br#"{"jsonrpc":"2.0","method":"x","params":{"a":1},"id":3}"#),
            Some(RequestId::Number(3))
        );
        assert_eq!(request_id_of_prefix(b"[1,2"), None);
        assert_eq!(request_id_of_prefix(br#"{"id":{"nested":1}}"#), None, "not a valid id");
    }
}
