//! The params of `tools/call` as the call takes them: the tool's name, the request's `_meta`, and
//! the arguments, taken out whole (they can be large, and only the call reads them).

use serde::Deserialize;
use serde_json::Value;

use crate::engine::params::{Field, Object, RequestMeta};

/// What a `tools/call` request gives the call.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct CallParams {
    pub(crate) name: Field<String>,
    pub(crate) meta: Field<Object<RequestMeta>>,
    pub(crate) arguments: Option<Value>,
}

impl CallParams {
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
        CallParams { name: field(name), meta: field(meta), arguments }
    }
}

/// A member as a [`Field`]; absent when there was none.
fn field<T: serde::de::DeserializeOwned>(member: Option<Value>) -> Field<T> {
    // A `Field` reads from any value (of another type, it is `Invalid`): the default is never taken.
    member.map_or(Field::Absent, |value| Field::deserialize(value).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// What `tools/call` read before: its params as a typed struct, the arguments removed first.
    #[derive(Debug, Default, serde::Deserialize)]
    #[serde(default)]
    struct Typed {
        name: Field<String>,
        #[serde(rename = "_meta")]
        meta: Field<Object<RequestMeta>>,
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
            let typed: Typed = crate::engine::params::read(Some(value));
            let expected = CallParams { name: typed.name, meta: typed.meta, arguments };
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
        assert_eq!((read.name, read.arguments), (Field::Given("last".to_owned()), Some(json!({ "a": 2 }))));
    }
}
