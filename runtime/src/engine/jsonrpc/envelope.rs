//! The envelope of one message, read straight from its text: `jsonrpc`, `id` and `method` are
//! classified as they are read, borrowing from the text where they can, with no JSON value built
//! for them; `params`, `result` and `error` are read as the values the methods take whole.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::RequestId;

/// The envelope, read field by field; anything else in the object is skipped.
#[derive(serde::Deserialize)]
pub(super) struct Envelope<'a> {
    #[serde(borrow)]
    pub(super) jsonrpc: Option<Scalar<'a>>,
    /// `Some(Scalar::Other)` for `"id": null`, which is refused, unlike an absent id (a
    /// notification).
    #[serde(borrow, default, deserialize_with = "present")]
    pub(super) id: Option<Scalar<'a>>,
    #[serde(borrow)]
    pub(super) method: Option<Scalar<'a>>,
    pub(super) params: Option<Value>,
    pub(super) result: Option<Value>,
    pub(super) error: Option<Value>,
}

/// A field that is present, whatever its value, `null` included.
pub(super) fn present<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<Scalar<'a>>, D::Error> {
    Scalar::deserialize(d).map(Some)
}

/// A field's value as the envelope reads it: what it checks is whether the value is a string or
/// an integer (of JSON-RPC's range for ids), nothing more.
#[derive(Debug, PartialEq)]
pub(super) enum Scalar<'a> {
    /// A string, borrowed from the message when it has no escapes.
    Str(Cow<'a, str>),
    /// An integer that fits an `i64`.
    Integer(i64),
    /// Anything else: `null`, a boolean, a fraction, a larger integer, an array, an object.
    Other,
}

impl Scalar<'_> {
    /// The request id this value stands for, as [`RequestId::from_json`] reads one.
    pub(super) fn into_request_id(self) -> Option<RequestId> {
        match self {
            Scalar::Str(s) => Some(RequestId::String(s.into_owned())),
            Scalar::Integer(n) => Some(RequestId::Number(n)),
            Scalar::Other => None,
        }
    }

    /// The same classification of a JSON value.
    fn of_value(value: Value) -> Self {
        match RequestId::from_json(value) {
            Some(RequestId::String(s)) => Scalar::Str(Cow::Owned(s)),
            Some(RequestId::Number(n)) => Scalar::Integer(n),
            None => Scalar::Other,
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Scalar::Integer(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(i64::try_from(v).map_or(Scalar::Other, Scalar::Integer))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }

    // Arrays and objects are read as JSON values are, so that what is refused inside them, and
    // how, stays as when the whole field was read as a value.
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Value::deserialize(SeqAccessDeserializer::new(seq)).map(Scalar::of_value)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Value::deserialize(MapAccessDeserializer::new(map)).map(Scalar::of_value)
    }
}

/// Reads `T` from a message's bytes. Text that is valid UTF-8 throughout (every message but a
/// broken one) is checked once, so the reader need not check each string again; other bytes are
/// read as before, for the same error.
pub(super) fn read<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> serde_json::Result<T> {
    match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Every way a field may be written reads as the field's JSON value classifies.
    #[test]
    fn a_field_reads_as_its_value_classifies() {
        let fields = [
            r#""2.0""#,
            r#""a\"b""#,
            r#""\u0032.0""#,
            "7",
            "-3",
            "9223372036854775807",
            "9223372036854775808",
            "-0",
            "1.0",
            "1e2",
            "true",
            "null",
            "[1, {\"a\": []}]",
            r#"{"a": 1}"#,
            r#"{"$serde_json::private::RawValue": "5"}"#,
        ];
        for field in fields {
            let text = format!(r#"{{"id": {field}}}"#);
            let envelope: Envelope = read(text.as_bytes()).unwrap();
            let value: Value = serde_json::from_str(field).unwrap();
            assert_eq!(envelope.id, Some(Scalar::of_value(value)), "{field}");
        }
        let borrowed: Envelope = read(br#"{"jsonrpc":"2.0","method":"ping"}"#).unwrap();
        assert!(matches!(borrowed.method, Some(Scalar::Str(Cow::Borrowed("ping")))));
        let absent: Envelope = read(br#"{"method":null,"params":{"a":[1]}}"#).unwrap();
        assert_eq!((absent.id, absent.method, absent.params), (None, None, Some(json!({ "a": [1] }))));
    }

    /// What is refused inside a field is refused as when the field was read as a value.
    #[test]
    fn a_broken_field_fails_as_its_value_would() {
        let broken = [r#"["\ud800"]"#, r#"{"a": 1e999}"#, "[1,]", r#"{"a" 1}"#, "1e999", "\"\u{1}\""];
        for field in broken {
            let text = format!(r#"{{"jsonrpc":"2.0","id": {field},"method":"x"}}"#);
            let ours = read::<Envelope>(text.as_bytes()).err().map(|e| e.to_string());
            let value = serde_json::from_str::<Value>(&text).err().map(|e| e.to_string());
            assert_eq!(ours, value, "{field}");
        }
        let invalid_utf8 = b"{\"id\": \"\xff\"}";
        let ours = read::<Envelope>(invalid_utf8).err().map(|e| e.to_string());
        assert_eq!(ours, serde_json::from_slice::<Value>(invalid_utf8).err().map(|e| e.to_string()));
    }
}
