//! A point-in-time copy of a model's state, as `snapshot` hands it out and `restore` takes it
//! back: the written document, each derived value by concrete address, and each meta value
//! under its meta key `path#snake_property`.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::path::{Path, Seg};
use super::spec::META_PROPERTIES;
use super::state::State;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub model_id: String,
    pub model_version: String,
    /// The written values only.
    pub base_doc: Value,
    /// Each concrete derived address and its value.
    pub derived_cache: Map<String, Value>,
    /// Each meta key (`$.path#snake_property`) and its value.
    pub meta_cache: Map<String, Value>,
}

/// The meta key of a property at an address: `$.amount#min_length`.
pub fn meta_key(path: &Path, property: &str) -> String {
    let mut snake = String::with_capacity(property.len() + 2);
    for c in property.chars() {
        if c.is_ascii_uppercase() {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    format!("{path}#{snake}")
}

/// The address and property a meta key names; `Err` says why it names none.
pub fn parse_meta_key(key: &str) -> Result<(Path, &'static str), String> {
    let (path, snake) = key.rsplit_once('#').ok_or_else(|| format!("meta key {key:?} has no `#property`"))?;
    let path = Path::parse(path).map_err(|e| e.0)?;
    let property = META_PROPERTIES
        .iter()
        .find(|p| meta_key(&Path::root(), p) == format!("$#{snake}"))
        .ok_or_else(|| format!("meta key {key:?} names no meta property"))?;
    Ok((path, property))
}

impl Snapshot {
    pub fn of(model_id: &str, version: &str, state: &State) -> Snapshot {
        let meta_cache = state
            .meta
            .iter()
            .flat_map(|(path, values)| values.iter().map(move |(p, v)| (meta_key(path, p), v.clone())))
            .collect();
        Snapshot {
            model_id: model_id.to_owned(),
            model_version: version.to_owned(),
            base_doc: state.base.clone(),
            derived_cache: state.derived.iter().map(|(p, v)| (p.to_string(), v.clone())).collect(),
            meta_cache,
        }
    }

    /// The derived values and meta values, read back from their keys.
    #[allow(clippy::type_complexity)]
    pub fn caches(&self) -> Result<(IndexMap<Path, Value>, IndexMap<Path, Map<String, Value>>), String> {
        let mut derived = IndexMap::new();
        for (address, value) in &self.derived_cache {
            derived.insert(Path::parse(address).map_err(|e| e.0)?, value.clone());
        }
        let mut meta: IndexMap<Path, Map<String, Value>> = IndexMap::new();
        for (key, value) in &self.meta_cache {
            let (path, property) = parse_meta_key(key)?;
            meta.entry(path).or_default().insert(property.to_owned(), value.clone());
        }
        Ok((derived, meta))
    }
}

/// Every leaf of `value` (a scalar, or an empty container) with its address under `at`.
pub fn leaves(at: &Path, value: &Value, out: &mut Vec<(Path, Value)>) {
    match value {
        Value::Object(m) if !m.is_empty() => {
            for (k, v) in m {
                leaves(&at.child(Seg::Key(k.clone())), v, out);
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for (i, v) in a.iter().enumerate() {
                leaves(&at.child(Seg::Index(i)), v, out);
            }
        }
        leaf => out.push((at.clone(), leaf.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_keys_are_snake_case_and_read_back() {
        let path = Path::parse("$.items[0].qty").unwrap();
        assert_eq!(meta_key(&path, "minLength"), "$.items[0].qty#min_length");
        assert_eq!(meta_key(&path, "readOnly"), "$.items[0].qty#read_only");
        assert_eq!(parse_meta_key("$.items[0].qty#multiple_of").unwrap(), (path, "multipleOf"));
        assert!(parse_meta_key("$.a#colour").unwrap_err().contains("no meta property"));
        assert!(parse_meta_key("$.a").is_err());
    }
}
