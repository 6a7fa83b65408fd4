//! How the engine reads a request's params: into a typed struct whose fields are each a
//! [`Field`], absent, null, of its type or of another, so that each method words its own
//! refusal (the specification's error for that method) rather than serde's.
//!
//! Params are always read from a JSON value ([`read`], [`read_ref`]), never from a stream: a
//! field that fails to read then leaves the others readable, so nothing is read twice.

use serde::de::{Deserialize, DeserializeOwned, Deserializer, Visitor};
use serde_json::Value;

/// One field of a request's params, as the request gave it.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) enum Field<T> {
    /// Not in the params.
    #[default]
    Absent,
    /// Written `null`.
    Null,
    /// Of its type.
    Given(T),
    /// Of another type.
    Invalid,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(d) {
            Ok(None) => Field::Null,
            Ok(Some(value)) => Field::Given(value),
            Err(_) => Field::Invalid,
        })
    }
}

impl<T> Field<T> {
    /// The value, when the field is there, not null, and of its type.
    pub(crate) fn given(self) -> Option<T> {
        match self {
            Field::Given(value) => Some(value),
            _ => None,
        }
    }
}

/// A nested object of params, read only from a JSON object: serde reads a struct from an array
/// too, by position, which no client means.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Object<T>(pub(crate) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(MapOnly(d)).map(Object)
    }
}

/// A deserializer that reads structs from maps alone.
struct MapOnly<D>(D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for MapOnly<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// The params as `T`; params that are no object (none, an array) read as `T::default()`, every
/// field absent. `T`'s fields are all [`Field`]s, so an object always reads.
pub(crate) fn read<T: DeserializeOwned + Default>(params: Option<Value>) -> T {
    match params {
        Some(object @ Value::Object(_)) => T::deserialize(object).unwrap_or_default(),
        _ => T::default(),
    }
}

/// The same, from params the engine needs whole afterwards.
pub(crate) fn read_ref<T: DeserializeOwned + Default>(params: &Option<Value>) -> T {
    params.as_ref().map_or_else(T::default, read_value)
}

/// The same, from any JSON value: one that is no object reads as `T::default()`.
pub(crate) fn read_value<T: DeserializeOwned + Default>(value: &Value) -> T {
    match value {
        Value::Object(_) => T::deserialize(value).unwrap_or_default(),
        _ => T::default(),
    }
}

/// The `_meta` every request may carry, as far as every method reads it.
#[derive(Debug, Default, PartialEq, serde::Deserialize)]
#[serde(default)]
pub(crate) struct RequestMeta {
    #[serde(rename = "progressToken")]
    progress_token: Field<Value>,
}

/// The progress token of a request's `_meta`.
pub(crate) fn progress_token(meta: Field<Object<RequestMeta>>) -> Option<Value> {
    meta.given().and_then(|Object(meta)| meta.progress_token.given())
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(default)]
    struct Params {
        name: Field<String>,
        nested: Field<Object<Inner>>,
    }

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(default)]
    struct Inner {
        value: Field<String>,
    }

    #[test]
    fn each_field_says_how_it_was_given() {
        let given = Some(json!({ "name": "a", "nested": { "value": 3 } }));
        let p: Params = read_ref(&given);
        assert_eq!(p, read(given));
        assert_eq!(p.name, Field::Given("a".into()));
        assert_eq!(p.nested, Field::Given(Object(Inner { value: Field::Invalid })));
        let p: Params = read(Some(json!({ "name": null, "nested": ["by position"], "other": [1, 2] })));
        assert_eq!((p.name, p.nested), (Field::Null, Field::Invalid), "a struct is read from an object only");
        let p: Params = read(Some(json!({ "name": 7, "nested": { "value": "v" } })));
        assert_eq!(p.name, Field::Invalid, "a field of another type leaves the others readable");
        assert_eq!(p.nested, Field::Given(Object(Inner { value: Field::Given("v".into()) })));
        let p: Params = read(Some(json!(["a"])));
        assert_eq!(p, Params::default(), "params that are no object have no fields");
    }
}
