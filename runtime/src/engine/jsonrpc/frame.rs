//! Encoding the messages the engine sends: a frame's constant parts are written as they are, and
//! only its values go through the serializer (which would otherwise escape every key again on
//! every message).

use serde::Serialize;

use super::{RequestId, RpcError};
use crate::engine::wire::WireResult;

/// A message being written, from its opening `{"jsonrpc":"2.0"` on.
struct Frame {
    out: Vec<u8>,
    /// Whether a value failed to serialize; the message is then empty.
    failed: bool,
}

impl Frame {
    fn new() -> Self {
        // Most messages fit, a 2026-07-28 result with its `resultType` and `_meta` included; a
        // larger one grows the buffer as it is written.
        let mut out = Vec::with_capacity(512);
        out.extend_from_slice(br#"{"jsonrpc":"2.0""#);
        Frame { out, failed: false }
    }

    /// Writes a member: `member` is its key as written, `,"key":`.
    fn member<T: Serialize + ?Sized>(mut self, member: &str, value: &T) -> Self {
        self.out.extend_from_slice(member.as_bytes());
        self.failed |= serde_json::to_writer(&mut self.out, value).is_err();
        self
    }

    /// Writes a member whose value `write` writes.
    fn member_written(mut self, member: &str, write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>) -> Self {
        self.out.extend_from_slice(member.as_bytes());
        self.failed |= write(&mut self.out).is_err();
        self
    }

    fn end(mut self) -> String {
        self.out.push(b'}');
        // Every frame here is plain data (strings, numbers, JSON values), which always
        // serializes, and serde_json writes UTF-8 only: neither fallback is ever taken.
        match self.failed {
            true => String::new(),
            false => String::from_utf8(self.out).unwrap_or_default(),
        }
    }
}

/// `{"jsonrpc":"2.0","id":..,"result":..}`
pub fn result<T: Serialize>(id: &RequestId, result: &T) -> String {
    Frame::new().member(r#","id":"#, id).member(r#","result":"#, result).end()
}

/// `{"jsonrpc":"2.0","id":..,"result":..}`, the result written as its type writes it.
pub(crate) fn written_result<T: WireResult>(id: &RequestId, result: &T) -> String {
    Frame::new().member(r#","id":"#, id).member_written(r#","result":"#, |out| result.write_json(out)).end()
}

/// `{"jsonrpc":"2.0","id":..,"result":..}`, the result written by `write`.
pub(crate) fn result_written_by(id: &RequestId, write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>) -> String {
    Frame::new().member(r#","id":"#, id).member_written(r#","result":"#, write).end()
}

/// `{"jsonrpc":"2.0","id":..|null,"error":{..}}`
pub fn error(id: Option<&RequestId>, error: &RpcError) -> String {
    Frame::new().member(r#","id":"#, &id).member(r#","error":"#, error).end()
}

/// `{"jsonrpc":"2.0","method":..,"params":..}`
pub fn notification<T: Serialize>(method: &str, params: Option<&T>) -> String {
    call(Frame::new(), method, params)
}

/// `{"jsonrpc":"2.0","id":..,"method":..,"params":..}`
pub fn request<T: Serialize>(id: &RequestId, method: &str, params: Option<&T>) -> String {
    call(Frame::new().member(r#","id":"#, id), method, params)
}

fn call<T: Serialize>(frame: Frame, method: &str, params: Option<&T>) -> String {
    let frame = frame.member(r#","method":"#, method);
    match params {
        Some(params) => frame.member(r#","params":"#, params),
        None => frame,
    }
    .end()
}

#[cfg(test)]
mod tests {
    use serde::ser::Error as _;
    use serde_json::{Value, json};

    use super::*;

    /// A frame reads as the JSON object of its members, in order, written compactly.
    #[test]
    fn encodes_frames() {
        let ids = [RequestId::Number(-7), RequestId::String("a\"b\n\u{e9}".into())];
        let values = [json!({}), json!(null), json!([1, "x\u{1}", { "k\\": 2.5 }]), json!({ "b": 1, "a": [] })];
        for id in &ids {
            for value in &values {
                let expected = json!({ "jsonrpc": "2.0", "id": id, "result": value }).to_string();
                assert_eq!(result(id, value), expected);
                let expected = json!({ "jsonrpc": "2.0", "id": id, "method": "m/\"", "params": value });
                assert_eq!(request(id, "m/\"", Some(value)), expected.to_string());
            }
            let expected = json!({ "jsonrpc": "2.0", "id": id, "method": "m" }).to_string();
            assert_eq!(request::<Value>(id, "m", None), expected);
        }
        let refused = RpcError::invalid_request("x").with_data(json!({ "why": "y" }));
        assert_eq!(
            error(None, &refused),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x","data":{"why":"y"}}}"#
        );
        assert_eq!(
            error(Some(&ids[0]), &RpcError::invalid_request("x")),
            r#"{"jsonrpc":"2.0","id":-7,"error":{"code":-32600,"message":"x"}}"#
        );
        assert_eq!(notification::<Value>("a", None), r#"{"jsonrpc":"2.0","method":"a"}"#);
        assert_eq!(notification("a", Some(&json!({ "p": 1 }))), r#"{"jsonrpc":"2.0","method":"a","params":{"p":1}}"#);
    }

    struct Unwritable;

    impl Serialize for Unwritable {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(S::Error::custom("no"))
        }
    }

    #[test]
    fn a_value_that_does_not_serialize_leaves_the_message_empty() {
        assert_eq!(result(&RequestId::Number(1), &Unwritable), "");
        assert_eq!(notification("a", Some(&Unwritable)), "");
    }
}
