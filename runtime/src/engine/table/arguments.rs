//! A call's arguments as the request gave them: a JSON value, or the text of an object, which a
//! tool whose argument type enforces its whole inputSchema reads straight into that type (as the
//! request is read, where the reader knows the tool).

use serde_json::Value;
use serde_json::value::RawValue;

use super::plain_members::PlainMembers;
use crate::api::rpc::RpcError;
use crate::api::tool::TypedArguments;

/// The arguments of a call.
#[derive(Debug)]
pub(crate) enum Arguments {
    Value(Value),
    /// The text of an object, checked as JSON when its message was read.
    Text(Box<str>),
    /// The text of an object read into the tool's argument type as its message was read, which
    /// checked it as JSON. The text is kept only when the server had a layer, which reads the
    /// arguments as a value (see [`Typed::keeps_text`]).
    Typed {
        text: Option<Box<str>>,
        read: Typed,
    },
}

/// Arguments read into the argument type of one of the table's tools: it is found again by its
/// place, with no lookup of its name.
#[derive(Debug)]
pub(crate) struct Typed {
    /// The tool's place among the table's tools of `table!`.
    pub(crate) entry: usize,
    pub(crate) arguments: TypedArguments,
    /// Whether their text is kept with them: a copy that only a layer reads.
    pub(crate) keeps_text: bool,
}

/// Text is equal to the same text only, read or not (a value never is).
impl PartialEq for Arguments {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Arguments::Value(a), Arguments::Value(b)) => a == b,
            (Arguments::Value(_), _) | (_, Arguments::Value(_)) => false,
            (a, b) => a.text() == b.text(),
        }
    }
}

impl Arguments {
    /// From the text of a request's `arguments`, checked as JSON when its message was read.
    pub(crate) fn from_text(text: &RawValue) -> Self {
        match text.get().starts_with('{') {
            true => Arguments::Text(text.get().into()),
            // No object (`null`, an array, a scalar): a value, taken as none or refused as ever.
            false => Arguments::Value(read_checked(text.get())),
        }
    }

    /// The arguments as a JSON value. Arguments read into the tool's type without their text
    /// are never asked for (a call read when the server had no layer runs without one); should
    /// they be, they are an empty object, which the schema then judges.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Arguments::Value(value) => value,
            Arguments::Text(text) | Arguments::Typed { text: Some(text), .. } => read_checked(&text),
            Arguments::Typed { text: None, .. } => Value::Object(Default::default()),
        }
    }

    /// The text of an object, read or not, where it was kept.
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Arguments::Value(_) => None,
            Arguments::Text(text) => Some(text),
            Arguments::Typed { text, .. } => text.as_deref(),
        }
    }

    /// Whether these are arguments read into the tool's type without their text.
    pub(crate) fn is_typed_only(&self) -> bool {
        matches!(self, Arguments::Typed { text: None, .. })
    }
}

/// Text already checked as JSON, as a value: it always reads.
fn read_checked(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// A call's arguments as an object (none or null is an empty one); anything else is a protocol
/// fault.
pub(crate) fn object(args: Option<Arguments>) -> Result<Arguments, RpcError> {
    match args {
        None | Some(Arguments::Value(Value::Null)) => Ok(Arguments::Value(Value::Object(Default::default()))),
        Some(args @ (Arguments::Value(Value::Object(_)) | Arguments::Text(_) | Arguments::Typed { .. })) => Ok(args),
        Some(Arguments::Value(_)) => Err(RpcError::invalid_params("tools/call arguments must be an object")),
    }
}

/// The names a call's arguments must and may have, for arguments read straight into the tool's
/// argument type, which do not hear of a member they do not know, and may let a required one be
/// absent or null (an `Option` the schema requires).
#[derive(Debug)]
pub(crate) struct Names {
    /// Every name the schema knows, when it refuses others.
    pub(crate) known: Option<Vec<String>>,
    /// The names it requires, not null.
    pub(crate) required: Vec<String>,
}

impl Names {
    /// Whether the object `text` names only known members and each required one, not null. A
    /// name written with escapes counts as unknown: the arguments are then read as a value,
    /// which says exactly what is wrong.
    pub(crate) fn admit(&self, text: &str) -> bool {
        if self.required.len() > 64 {
            return false;
        }
        let mut members = PlainMembers::of(text);
        self.admit_members(&mut members) && !members.stopped_at_escape()
    }

    /// Whether `members` (each name, and whether its value is null) name only known members and
    /// each required one, not null.
    fn admit_members<'a>(&self, members: impl Iterator<Item = (&'a str, bool)>) -> bool {
        let mut present = 0u64;
        for (name, null) in members {
            if self.known.as_ref().is_some_and(|known| !known.iter().any(|known| known == name)) {
                return false;
            }
            match (self.required.iter().position(|required| required == name), null) {
                (Some(_), true) => return false,
                (Some(i), false) => present |= 1 << i,
                (None, _) => {}
            }
        }
        present.count_ones() as usize == self.required.len()
    }
}

#[cfg(test)]
mod tests {
    use serde::de::{IgnoredAny, MapAccess, Visitor};
    use serde_json::json;

    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn text_stands_for_the_value_it_reads_as() {
        assert_eq!(Arguments::from_text(&raw(r#"{"a": [1]}"#)).into_value(), json!({ "a": [1] }));
        assert_eq!(Arguments::from_text(&raw("null")), Arguments::Value(Value::Null));
        assert_eq!(object(Some(Arguments::from_text(&raw("null")))), Ok(Arguments::Value(json!({}))));
        assert!(object(Some(Arguments::from_text(&raw("[1]")))).is_err());
    }

    #[test]
    fn names_admits_known_and_required_names() {
        let names = Names { known: Some(vec!["a".to_owned(), "b".to_owned()]), required: vec!["b".to_owned()] };
        assert!(names.admit(r#"{"a": {"c": 1}, "b": 2}"#));
        assert!(!names.admit(r#"{"b": 2, "b": null}"#));
        assert!(!names.admit(r#"{"a": 1}"#), "a required one absent");
        assert!(!names.admit(r#"{"b": 1, "c": 2}"#), "an unknown one");
        assert!(!names.admit(r#"{"\u0062": 1}"#), "escaped: read as a value instead");
        assert!(!names.admit(r#"{"b": 2, "\u0063": 1}"#), "escaped after the required one");
        assert!(names.admit(r#"{"a": "x\"y", "b": 2}"#), "escapes in a value only");
        let open = Names { known: None, required: Vec::new() };
        assert!(open.admit(r#"{"c": 1}"#));
    }

    /// Text read by its quotes and brackets is admitted as serde reads it, escapes and all.
    #[test]
    fn plain_text_is_admitted_as_serde_reads_it() {
        let names = Names { known: Some(vec!["a".to_owned(), "b".to_owned()]), required: vec!["b".to_owned()] };
        let texts = [
            r#"{"a": {"c": [1, "]}"]}, "b": 2}"#,
            r#"{"b": null}"#,
            r#"{"b": [null]}"#,
            r#"{ "a" : 1 , "b" : "" }"#,
            r#"{"a": "b", "c": "b"}"#,
            r#"{"b": 1, "b": 2, "a": nullx}"#,
            "{}",
            r#"{"a": "x\"y", "b": 2}"#,
            r#"{"a": ["\\", {"c": "\"}"}], "b": "\\\""}"#,
            r#"{"\u0062": 1}"#,
            r#"{"b": 2, "\u0063": 1}"#,
            r#"{"b": 2, "a\n": 1}"#,
        ];
        for text in texts {
            let Ok(text) = RawValue::from_string(text.to_owned()) else { continue };
            let mut reader = serde_json::Deserializer::from_str(text.get());
            let by_serde = serde::Deserializer::deserialize_map(&mut reader, BySerde(&names)).unwrap_or(false);
            assert_eq!(names.admit(text.get()), by_serde, "{text}");
        }
    }

    /// [`Names::admit`] with the members read by serde: a name written with an escape, which
    /// serde reads only as an owned string, fails.
    struct BySerde<'n>(&'n Names);

    impl<'de> Visitor<'de> for BySerde<'_> {
        type Value = bool;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut members = Vec::new();
            while let Some(name) = map.next_key::<&'de str>()? {
                members.push((name, map.next_value::<Option<IgnoredAny>>()?.is_none()));
            }
            Ok(self.0.admit_members(members.into_iter()))
        }
    }
}
