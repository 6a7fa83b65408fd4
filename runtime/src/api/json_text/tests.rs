use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::{Value, json};

use super::JsonText;

/// What the value path writes: the value, its integral floats as integers, compact and pretty.
fn by_value<T: Serialize>(value: &T) -> (String, String) {
    let mut v = serde_json::to_value(value).unwrap();
    crate::api::numbers::normalize(&mut v);
    (v.to_string(), serde_json::to_string_pretty(&v).unwrap())
}

fn assert_written_as_a_value<T: Serialize>(value: T) {
    let text = JsonText::of(&value).expect("written");
    let (compact, pretty) = by_value(&value);
    assert_eq!(String::from_utf8(text.compact.clone()).unwrap(), compact);
    assert_eq!((text.pretty.unescaped(), text.pretty_len), (pretty.clone(), pretty.len()));
    let quoted = serde_json::to_string(&pretty).unwrap();
    assert_eq!(String::from_utf8(text.pretty.0.clone()).unwrap(), quoted[1..quoted.len() - 1]);
    assert_eq!(text.is_object(), compact.starts_with('{'));
    assert_eq!(text.to_value(), serde_json::from_str::<Value>(&compact).unwrap());
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Sum {
    sum: f64,
    parts: Vec<f32>,
    label: Option<String>,
    nested: Inner,
    kind: Kind,
    empty: Vec<u8>,
    nothing: BTreeMap<String, u8>,
}

#[derive(Serialize)]
struct Inner {
    #[serde(with = "serde_bytes_like")]
    bytes: Vec<u8>,
    tuple: (i8, u16, char),
    unit: (),
}

#[derive(Serialize)]
enum Kind {
    Struct { x: i64, y: u64 },
}

/// Bytes as serde writes `serialize_bytes`.
mod serde_bytes_like {
    pub(super) fn serialize<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(bytes)
    }
}

#[test]
fn writes_what_the_value_path_writes() {
    assert_written_as_a_value(Sum {
        sum: 30.0,
        parts: vec![0.1, 2.0, -0.0, f32::NAN, 1e20],
        label: Some("a \"b\"\n\u{1}é😀".into()),
        nested: Inner { bytes: vec![0, 255], tuple: (-1, 65535, 'x'), unit: () },
        kind: Kind::Struct { x: i64::MIN, y: u64::MAX },
        empty: Vec::new(),
        nothing: BTreeMap::new(),
    });
    assert_written_as_a_value(
        json!({ "a": [1.5, 1e300, 9007199254740993.0, 9007199254740992.0, -9007199254740992.0, -2.0, 0.5], "b": { "c": [] }, "d": {} }),
    );
    assert_written_as_a_value("text");
    assert_written_as_a_value(3.0);
    assert_written_as_a_value(Option::<u8>::None);
    assert_written_as_a_value([[1, 2], [3, 4]]);
    assert_written_as_a_value(Pairs(vec![(1.5f32, 1.0f32), (2.0, 2.5)]));
    assert_written_as_a_value(BTreeMap::from([(-7i128, 1u128), (u64::MAX as i128, 2)]));
    assert_written_as_a_value(HashMap::from([(true, "t")]));
    assert_written_as_a_value(BTreeMap::from([('c', ())]));
}

/// A map of any keys, in order.
struct Pairs<K, V>(Vec<(K, V)>);

impl<K: Serialize, V: Serialize> Serialize for Pairs<K, V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

#[derive(Serialize)]
struct Flattened {
    id: u8,
    #[serde(flatten)]
    rest: BTreeMap<String, u8>,
}

/// A value the writer would write otherwise is left to the value path.
#[test]
fn leaves_to_the_value_path_what_it_would_write_otherwise() {
    assert!(JsonText::of(&u128::MAX).is_none(), "a value holds 64 bits");
    assert!(JsonText::of(&i128::MIN).is_none());
    let raw = serde_json::value::RawValue::from_string("{ \"a\" : 1.0 }".into()).unwrap();
    assert!(JsonText::of(&raw).is_none(), "a value writes a raw value anew");
    let twice = Flattened { id: 1, rest: BTreeMap::from([("id".into(), 2), ("x".into(), 3)]) };
    assert!(JsonText::of(&twice).is_none(), "a value keeps one member of a name");
    let once = Flattened { id: 1, rest: BTreeMap::from([("x".into(), 3)]) };
    assert_written_as_a_value(once);
    assert!(JsonText::of(&BTreeMap::from([((1, 2), 3)])).is_none(), "a key must be a string");
    assert!(JsonText::of(&Pairs(vec![("a", 1), ("b", 2), ("a", 3)])).is_none());
}
