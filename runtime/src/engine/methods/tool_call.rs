//! The params of `tools/call` as the call takes them: the tool's name, the request's `_meta`, and
//! the arguments, taken out whole (they can be large, and only the call reads them), as a value or
//! as their text.

use std::borrow::Cow;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::engine::jsonrpc::canonical_call;
use crate::engine::jsonrpc::raw_request::{self, RawRequest};
use crate::engine::params::{Field, Object, RequestMeta};
use crate::engine::table::{Arguments, Typed};

/// What a `tools/call` request gives the call; the tool's name borrowed from the message's text
/// where it can be.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct CallParams<'a> {
    pub(crate) name: Field<Cow<'a, str>>,
    pub(crate) meta: Field<Object<RequestMeta>>,
    pub(crate) arguments: Option<Arguments>,
}

impl CallParams<'static> {
    /// From the params read as a JSON value; params that are no object (none, an array) name no
    /// tool.
    pub(crate) fn from_value(params: Option<Value>) -> Self {
        match params {
            Some(Value::Object(members)) => Self::from_members(members),
            _ => Self::default(),
        }
    }

    /// From the members of the params object, in order, each looked at once: a later member of
    /// a name replaces an earlier one, as when the object is read as a JSON value.
    pub(crate) fn from_members<K: AsRef<str>>(members: impl IntoIterator<Item = (K, Value)>) -> Self {
        let (mut name, mut meta, mut arguments) = (None, None, None);
        for (key, value) in members {
            match key.as_ref() {
                "name" => name = Some(value),
                "_meta" => meta = Some(value),
                "arguments" => arguments = Some(value),
                _ => {}
            }
        }
        CallParams { name: field(name), meta: field(meta), arguments: arguments.map(Arguments::Value) }
    }
}

/// The params of a `tools/call` read from its message's text, the arguments kept as text: for
/// [`raw_request::read`], which reads each member here as a value would be read.
pub(crate) struct TextParams<'a>(pub(crate) CallParams<'a>);

impl<'de> Deserialize<'de> for TextParams<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (name, meta, arguments) = d.deserialize_map(Members)?;
        let arguments = checked(arguments).map_err(serde::de::Error::custom)?;
        Ok(TextParams(CallParams { name: name.unwrap_or_default(), meta: field(meta), arguments }))
    }
}

/// A `tools/call` of an initialized session read from its text: from its constant parts where
/// it is written the usual way, its arguments read into the tool's type by `typed` (given the
/// tool's name and the text from the arguments on, see [`arguments_at`]) where they can be; else
/// with serde. `None` when it is to be read as a value.
pub(crate) fn read<'a>(
    bytes: &'a [u8],
    typed: impl FnOnce(&str, &str) -> Option<(Typed, usize)>,
) -> Option<RawRequest<TextParams<'a>>> {
    let usual = canonical_call::read_parts(bytes).and_then(|(id, name, rest)| {
        let (_, arguments, after) = arguments_at(rest, |text| typed(name, text))?;
        (after == "}").then_some((id, name, arguments))
    });
    let Some((id, name, arguments)) = usual else {
        return raw_request::read::<TextParams>(bytes, "tools/call");
    };
    let name = Field::Given(Cow::Borrowed(name));
    Some(RawRequest { id, params: TextParams(CallParams { name, meta: Field::Absent, arguments: Some(arguments) }) })
}

/// The arguments object at the start of `rest`, its text, and the text after it: read into the
/// tool's argument type by `typed` (which says how long their text is) where they can be, which
/// reads them as JSON once; else read over as JSON here. `None` when `rest` starts with no JSON
/// object, or one that does not read as a value where it is.
pub(crate) fn arguments_at(
    rest: &str,
    typed: impl FnOnce(&str) -> Option<(Typed, usize)>,
) -> Option<(&str, Arguments, &str)> {
    if !rest.starts_with('{') {
        return None;
    }
    let (read, end) = match typed(rest) {
        Some((read, end)) => (Some(read), end),
        None => {
            // Read over as the whole message's reader reads it.
            let mut values = serde_json::Deserializer::from_str(rest).into_iter::<IgnoredAny>();
            values.next()?.ok()?;
            (None, values.byte_offset())
        }
    };
    let (text, after) = rest.split_at_checked(end)?;
    // The params are at level 1 of the message, their arguments at level 2.
    if !raw_request::reads_as_value(text, 2) {
        return None;
    }
    let arguments = match read {
        Some(read) => Arguments::Typed { text: read.keeps_text.then(|| text.into()), read },
        None => Arguments::Text(text.into()),
    };
    Some((text, arguments, after))
}

/// The arguments' text, when it reads as a value.
pub(crate) fn checked(arguments: Option<&RawValue>) -> Result<Option<Arguments>, &'static str> {
    // The params are at level 1 of the message, their arguments at level 2.
    match arguments {
        Some(text) if !raw_request::reads_as_value(text.get(), 2) => Err("arguments that do not read as a value"),
        arguments => Ok(arguments.map(Arguments::from_text)),
    }
}

/// The members of the params object a call reads, as text reads them: a later member of a name
/// replaces an earlier one; the others are read as values, and dropped.
struct Members;

impl<'de> Visitor<'de> for Members {
    type Value = (Option<Field<Cow<'de, str>>>, Option<Value>, Option<&'de RawValue>);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut name, mut meta, mut arguments) = (None, None, None);
        while let Some(key) = map.next_key::<Key<'de>>()? {
            match key.0.as_ref() {
                "name" => name = Some(map.next_value::<Name>()?.0),
                "_meta" => meta = Some(map.next_value()?),
                "arguments" => arguments = Some(map.next_value()?),
                _ => drop(map.next_value::<Value>()?),
            }
        }
        Ok((name, meta, arguments))
    }
}

/// The tool's name as a [`Field`], read from the text with no JSON value built for a string;
/// anything else is read as a value would be, so that what a value refuses is refused alike.
struct Name<'a>(Field<Cow<'a, str>>);

impl<'de> Deserialize<'de> for Name<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NameVisitor)
    }
}

struct NameVisitor;

impl<'de> Visitor<'de> for NameVisitor {
    type Value = Name<'de>;

    fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Name(Field::Given(Cow::Borrowed(v))))
    }

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Name(Field::Given(Cow::Owned(v.to_owned()))))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Name(Field::Null))
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Name(Field::Invalid))
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Name(Field::Invalid))
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Name(Field::Invalid))
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Name(Field::Invalid))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Value::deserialize(SeqAccessDeserializer::new(seq)).map(|_| Name(Field::Invalid))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        // An arbitrary-precision number reads as a map too: as a value, it is what decides.
        Value::deserialize(MapAccessDeserializer::new(map)).map(|value| Name(field(Some(value))))
    }
}

/// A member's name, borrowed from the text unless written with escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a member's name")
    }

    fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Borrowed(v)))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Owned(v.to_owned())))
    }
}

/// A member as a [`Field`]; absent when there was none.
fn field<T: serde::de::DeserializeOwned>(member: Option<Value>) -> Field<T> {
    // A `Field` reads from any value (of another type, it is `Invalid`): the default is never taken.
    member.map_or(Field::Absent, |value| Field::deserialize(value).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;
    use crate::api::tool::TypedArguments;

    /// What `tools/call` read before: its params as a typed struct, the arguments removed first.
    #[derive(Debug, Default, serde::Deserialize)]
    #[serde(default)]
    struct TypedParams {
        name: Field<Cow<'static, str>>,
        #[serde(rename = "_meta")]
        meta: Field<Object<RequestMeta>>,
    }

    /// The params of a `tools/call` message, read from its text.
    fn read_text(params: &str) -> Option<CallParams<'static>> {
        let message = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#);
        let read = raw_request::read::<TextParams>(message.as_bytes(), "tools/call")?.params.0;
        let name = match read.name {
            Field::Given(name) => Field::Given(Cow::Owned(name.into_owned())),
            Field::Absent => Field::Absent,
            Field::Null => Field::Null,
            Field::Invalid => Field::Invalid,
        };
        Some(CallParams { name, meta: read.meta, arguments: read.arguments })
    }

    /// A message read from its text is one `decode` reads alike; one it refuses is left to
    /// `decode`.
    #[test]
    fn reads_from_text_what_decode_reads_alike() {
        use crate::engine::jsonrpc::{Incoming, decode};
        let params = [
            r#"{"name":"add","arguments":{"a":1,"b":2}}"#,
            r#"{"name":"a\"b","arguments":{"s":"\u00e9\ud83d\ude00","n":[1.5,-0,1e300]},"x":[{}]}"#,
            r#"{"arguments":{"s":"\ud800"}}"#,
            r#"{"arguments":{"n":1e999}}"#,
            r#"{"x":{"n":1e999}}"#,
            r#"{"arguments":{"a":1,}}"#,
            "[1]",
            "null",
        ];
        for params in params {
            for message in [
                format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{params}}}"#),
                format!(r#"{{"params": {params} , "method":"tools/call","id":"x","jsonrpc":"2.0"}}"#),
                format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{params}}}"#),
                format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{params}}}"#),
                format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{params},"result":1}}"#),
            ] {
                let Some(read) = raw_request::read::<TextParams>(message.as_bytes(), "tools/call") else {
                    continue;
                };
                let Ok(Incoming::Request { id, method, params }) = decode(message.as_bytes()) else {
                    panic!("decode refuses {message}")
                };
                assert_eq!((read.id, method.as_str()), (id, "tools/call"), "{message}");
                let arguments = read.params.0.arguments.map(Arguments::into_value).map(Arguments::Value);
                assert_eq!(CallParams { arguments, ..read.params.0 }, CallParams::from_value(params), "{message}");
            }
        }
        let read = |params: &str| read_text(params).is_some();
        assert!(read(params[0]) && read(params[1]));
        assert!(!read(params[2]) && !read(params[3]) && !read(params[4]) && !read(params[6]));
    }

    /// A tool that reads no text.
    fn untyped(_: &str, _: &str) -> Option<(Typed, usize)> {
        None
    }

    /// A tool whose argument type reads any object, each member's value skipped over (as
    /// loosely as the message's reader skips over arguments it keeps as text).
    fn loosely_typed(_: &str, text: &str) -> Option<(Typed, usize)> {
        let mut values = serde_json::Deserializer::from_str(text).into_iter::<BTreeMap<String, IgnoredAny>>();
        let members = values.next()?.ok()?;
        let arguments = TypedArguments(Box::new(members));
        Some((Typed { entry: 0, arguments, keeps_text: true }, values.byte_offset()))
    }

    /// A call read from its constant parts is the call serde reads, its arguments read into the
    /// tool's type or not.
    #[test]
    fn reads_a_usual_call_as_serde_reads_it() {
        // Nested as deep as the message's reader reads, and one level deeper.
        let nested = |levels: usize| format!(r#"{{"a":{}1{}}}"#, "[".repeat(levels), "]".repeat(levels));
        let arguments = [
            r#"{"a":1,"b":2}"#,
            r#"{"s":"\u00e9}}","n":[1.5,-0,{"x":null}]}"#,
            r#"{"s":"\ud800"}"#,
            r#"{"n":1e999}"#,
            r#"{"a":1,}"#,
            r#"{"a":1},"b":{"c":2}"#,
            r#"{"a":1}  }"#,
            "{}",
            "[]",
            &nested(123),
            &nested(124),
        ];
        let deepest_read = arguments.iter().filter(|a| a.starts_with(r#"{"a":["#)).map(|a| {
            let line =
                format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"t","arguments":{a}}}}}"#);
            raw_request::read::<TextParams>(line.as_bytes(), "tools/call").is_some()
        });
        assert_eq!(deepest_read.collect::<Vec<_>>(), [true, false], "the limit is where the test says");
        for arguments in arguments {
            for name in ["add_numbers", "", "é", "a b", r"a\u0062"] {
                let line = format!(
                    r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
                );
                let by_serde = raw_request::read::<TextParams>(line.as_bytes(), "tools/call");
                for typed in [untyped, loosely_typed] {
                    let read = read(line.as_bytes(), typed);
                    assert_eq!(read.is_some(), by_serde.is_some(), "{line}");
                    if let (Some(read), Some(by_serde)) = (read, &by_serde) {
                        assert_eq!((&read.id, &read.params.0), (&by_serde.id, &by_serde.params.0), "{line}");
                    }
                }
            }
        }
        let line = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}"#;
        let typed = |typed: fn(&str, &str) -> Option<(Typed, usize)>| {
            read(line.as_bytes(), typed).and_then(|read| read.params.0.arguments)
        };
        assert!(matches!(typed(loosely_typed), Some(Arguments::Typed { .. })), "read into the tool's type");
        assert!(matches!(typed(untyped), Some(Arguments::Text(_))), "kept as text");
    }

    #[test]
    fn reads_as_a_typed_struct_reads_the_object() {
        let cases = [
            json!({ "name": "add", "arguments": { "a": 1 } }),
            json!({ "arguments": [1], "name": 7, "_meta": { "progressToken": "t" } }),
            json!({ "name": null, "_meta": ["by position"], "other": { "name": "inner" } }),
            json!({ "_meta": { "progressToken": 5, "x": 1 }, "name": "n" }),
            json!({}),
            json!(["add"]),
            json!("add"),
        ];
        for params in cases {
            let mut value = params.clone();
            let arguments = value.as_object_mut().and_then(|p| p.remove("arguments"));
            let typed: TypedParams = crate::engine::params::read(Some(value));
            let expected =
                CallParams { name: typed.name, meta: typed.meta, arguments: arguments.map(Arguments::Value) };
            if let Some(from_text) = read_text(&params.to_string()) {
                let arguments = from_text.arguments.map(Arguments::into_value).map(Arguments::Value);
                assert_eq!(CallParams { arguments, ..from_text }, expected, "{params}");
            }
            assert_eq!(CallParams::from_value(Some(params)), expected);
        }
        assert_eq!(CallParams::from_value(None), CallParams::default());
    }

    #[test]
    fn a_later_member_replaces_an_earlier_one() {
        let members = [("name", json!("first")), ("arguments", json!({ "a": 1 })), ("name", json!("last"))];
        let mut members: Vec<(&str, Value)> = members.into();
        members.push(("arguments", json!({ "a": 2 })));
        let read = CallParams::from_members(members);
        assert_eq!(
            (read.name, read.arguments),
            (Field::Given(Cow::from("last")), Some(Arguments::Value(json!({ "a": 2 }))))
        );
        let read = read_text(r#"{"name":"first","arguments":{"a":1},"n\u0061me":"last","arguments":{"a":2}}"#).unwrap();
        let arguments = read.arguments.map(Arguments::into_value);
        assert_eq!((read.name, arguments), (Field::Given(Cow::from("last")), Some(json!({ "a": 2 }))));
    }
}
