//! A request read with its params left as text: for the methods that read their params straight
//! into typed values (a tool's arguments into the tool's argument type), without building the
//! JSON value [`decode`](super::decode) builds.
//!
//! The params are still checked here as a JSON value is read, what is refused refused alike, so a
//! message read this way is one [`decode`](super::decode) reads too. Whatever is out of the ordinary
//! (no such request, a malformed message, nesting near the limit) is left to `decode`, so its
//! answer stays what it was.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::envelope::{self, Scalar, present};
use super::{MAX_DEPTH, RequestId};

/// A request with its params read as `P` reads them.
#[derive(Debug)]
pub(crate) struct RawRequest<P> {
    pub(crate) id: RequestId,
    pub(crate) params: P,
}

/// The envelope with its params read as `P`; `result` and `error` are read only to see that there
/// are none (a request carrying them is left to `decode`, which reads them as values).
#[derive(serde::Deserialize)]
struct Envelope<'a, P> {
    #[serde(borrow)]
    jsonrpc: Option<Scalar<'a>>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<Scalar<'a>>,
    #[serde(borrow)]
    method: Option<Scalar<'a>>,
    params: Option<P>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// The message, when it is a `method` request whose params read as `P`; `None` for anything else,
/// which [`decode`](super::decode) then reads. `P` must check what it reads as a value would be
/// read (what it keeps as text, with [`reads_as_value`]), and fail on what it cannot read.
pub(crate) fn read<'a, P: serde::Deserialize<'a>>(bytes: &'a [u8], method: &str) -> Option<RawRequest<P>> {
    let env: Envelope<P> = envelope::read(bytes).ok()?;
    let ordinary = matches!(&env.jsonrpc, Some(Scalar::Str(version)) if version == "2.0")
        && matches!(&env.method, Some(Scalar::Str(m)) if m == method)
        && env.result.is_none()
        && env.error.is_none();
    let params = env.params.filter(|_| ordinary)?;
    Some(RawRequest { id: env.id?.into_request_id()?, params })
}

/// Whether text kept as it is, at `level` of its message (whose own object is level 0), reads as
/// a JSON value there: skipping over it as text (or reading it as a type) checked its syntax
/// only loosely.
pub(crate) fn reads_as_value(text: &str, level: usize) -> bool {
    plainly_a_value(text, level)
        || Checked { depth: level }.deserialize(&mut serde_json::Deserializer::from_str(text)).is_ok()
}

/// Whether text that skipping over as a value accepted reads as a value without a doubt. What
/// skipping lets through is an escape a string refuses (a lone surrogate), a number out of range,
/// and nesting past the limit: text with no backslash, no exponent (an `e` after a digit), and
/// too short to nest that deep has none of them (nor a number of the 309 digits that overflow
/// without an exponent, since the limit on nesting keeps it shorter).
fn plainly_a_value(text: &str, level: usize) -> bool {
    if text.len() >= 2 * (MAX_DEPTH - 1).saturating_sub(level) {
        return false;
    }
    let mut after_digit = false;
    for &byte in text.as_bytes() {
        if byte == b'\\' || (after_digit && matches!(byte, b'e' | b'E')) {
            return false;
        }
        after_digit = byte.is_ascii_digit();
    }
    true
}

/// Reads a JSON value as `serde_json::Value` does, refusing what it refuses (strings, escapes and
/// numbers are parsed the same way), but builds nothing. `depth` is the value's level within
/// the message, whose own object is level 0: one at [`MAX_DEPTH`] - 1 or deeper is refused here,
/// since reading the params on their own starts counting afresh.
#[derive(Clone, Copy)]
struct Checked {
    depth: usize,
}

impl Checked {
    fn inner<E: de::Error>(self) -> Result<Self, E> {
        match self.depth + 1 < MAX_DEPTH - 1 {
            true => Ok(Checked { depth: self.depth + 1 }),
            false => Err(E::custom("nested too deep to read here")),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Checked {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Checked {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let inner = self.inner()?;
        while seq.next_element_seed(inner)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let inner = self.inner()?;
        // Keys are parsed as strings whatever the seed: checked as a value's are.
        while map.next_key_seed(inner)?.is_some() {
            map.next_value_seed(inner)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// What reads here reads as a value too; what a value refuses is refused here.
    #[test]
    fn reads_as_a_value_reads() {
        let texts = [
            r#"{"a":1,"b":[2.5,-0,1e300,"\u00e9\ud83d\ude00"]}"#,
            r#"{"s":"\ud800"}"#,
            r#"{"n":1e999}"#,
            r#"{"\udc00":1}"#,
        ];
        for text in texts {
            // RawValue skips over most of these loosely and keeps them as text.
            let Ok(text) = RawValue::from_string(text.to_owned()) else { continue };
            let value = serde_json::from_str::<Value>(text.get());
            assert_eq!(reads_as_value(text.get(), 2), value.is_ok(), "{text}");
        }
    }

    /// Text read as a value without the check is text the check reads.
    #[test]
    fn plain_text_reads_as_a_value() {
        let texts = [
            r#"{"a":1,"b":[2.5,-0,true,null,"x y"]}"#,
            r#"{"note":"e1","n":1E5}"#,
            r#"{"n":12345678901234567890123}"#,
            r#"{"s":"\ud800"}"#,
            "[1.5e3]",
        ];
        for text in texts {
            let text = RawValue::from_string(text.to_owned()).unwrap();
            if plainly_a_value(text.get(), 2) {
                let checked = Checked { depth: 2 }.deserialize(&mut serde_json::Deserializer::from_str(text.get()));
                assert!(checked.is_ok(), "{text}");
            }
        }
        assert!(plainly_a_value(r#"{"a":1,"b":2}"#, 2));
        assert!(!plainly_a_value(r#"{"n":1E5}"#, 2) && !plainly_a_value(r#"{"s":"\ud800"}"#, 2));
        let deep = |levels: usize| format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
        for levels in 100..130 {
            let text = RawValue::from_string(deep(levels)).unwrap();
            if plainly_a_value(text.get(), 2) {
                assert!(Checked { depth: 2 }.deserialize(&mut serde_json::Deserializer::from_str(text.get())).is_ok());
            }
        }
    }

    /// Text nested near the limit is refused, so that the message is read whole, which knows
    /// exactly where the limit lies.
    #[test]
    fn refuses_nesting_near_the_limit() {
        let nested =
            |levels: usize| RawValue::from_string(format!("{}1{}", "[".repeat(levels), "]".repeat(levels))).unwrap();
        assert!(reads_as_value(nested(100).get(), 2));
        for levels in 100..140 {
            let message = format!(r#"{{"a":{{"b":{}}}}}"#, nested(levels).get());
            if reads_as_value(nested(levels).get(), 2) {
                assert!(serde_json::from_str::<Value>(&message).is_ok(), "{levels}");
            }
        }
    }
}
