//! A SpecEvolution applied to a spec as written: removals then upserts in each list section,
//! the schema and the views wholesale or by diff, constants, tests, library and version. What it
//! leaves is validated and run by `Model::evolve`.

use serde_json::{Map, Value};

use super::path::{Path, Seg};
use super::snapshot::meta_key;

/// Every key a SpecEvolution may hold.
pub const KEYS: &[&str] = &[
    "newVersion",
    "expectedVersion",
    "upsertDerivations",
    "removeDerivations",
    "upsertConstraints",
    "removeConstraints",
    "upsertEffects",
    "removeEffects",
    "upsertMetaDerivations",
    "removeMetaDerivations",
    "upsertDefaultValues",
    "removeDefaultValues",
    "newSchema",
    "upsertSchemaDefs",
    "removeSchemaDefs",
    "upsertSchemaNodes",
    "removeSchemaNodes",
    "newViewDefinition",
    "upsertViews",
    "removeViews",
    "upsertComponents",
    "removeComponents",
    "newDefaultView",
    "newConstants",
    "upsertConstants",
    "removeConstants",
    "newTests",
    "newLibrary",
    "backfill",
];

const SCHEMA_DIFF: &[&str] = &["upsertSchemaDefs", "removeSchemaDefs", "upsertSchemaNodes", "removeSchemaNodes"];
const VIEW_DIFF: &[&str] = &["upsertViews", "removeViews", "upsertComponents", "removeComponents", "newDefaultView"];

/// Why an evolution is refused before its spec is validated.
#[derive(Debug, Clone, PartialEq)]
pub enum DiffError {
    /// `expectedVersion` is not the live version.
    Conflict {
        expected: String,
        actual: String,
    },
    Invalid(String),
}

/// What an evolution leaves: the new spec, the values to backfill, and whether the schema changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Evolved {
    pub spec: Value,
    pub backfill: Map<String, Value>,
    pub touches_schema: bool,
}

pub(super) fn invalid<T>(message: impl Into<String>) -> Result<T, DiffError> {
    Err(DiffError::Invalid(message.into()))
}

/// Applies `evolution` to `raw`, a spec as written.
pub fn apply(raw: &Value, evolution: &Map<String, Value>) -> Result<Evolved, DiffError> {
    let live = raw.get("version").and_then(Value::as_str).unwrap_or("1.0.0");
    if let Some(expected) = evolution.get("expectedVersion") {
        let expected = expected.as_str().map_or_else(|| expected.to_string(), str::to_owned);
        if expected != live {
            return Err(DiffError::Conflict { expected, actual: live.to_owned() });
        }
    }
    if let Some(unknown) = evolution.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return invalid(format!("{unknown:?} is not a SpecEvolution key; the keys are {}", KEYS.join(", ")));
    }
    let has = |keys: &[&'static str]| keys.iter().find(|k| evolution.contains_key(**k)).copied();
    for (wholesale, diff) in [("newSchema", SCHEMA_DIFF), ("newViewDefinition", VIEW_DIFF)] {
        if let (true, Some(key)) = (evolution.contains_key(wholesale), has(diff)) {
            return invalid(format!("`{wholesale}` replaces the whole section: give it or `{key}`, not both"));
        }
    }
    if let (true, Some(key)) = (evolution.contains_key("newConstants"), has(&["upsertConstants", "removeConstants"])) {
        return invalid(format!("`newConstants` replaces every constant: give it or `{key}`, not both"));
    }
    let Value::Object(mut spec) = raw.clone() else { return invalid("the live spec is not an object") };
    let by = |field: &'static str| move |item: &Value| item.get(field).and_then(Value::as_str).map(str::to_owned);
    list(&mut spec, evolution, "derivations", "Derivations", &by("path"))?;
    list(&mut spec, evolution, "constraints", "Constraints", &by("id"))?;
    list(&mut spec, evolution, "effects", "Effects", &by("id"))?;
    list(&mut spec, evolution, "defaultValues", "DefaultValues", &by("path"))?;
    let meta = |item: &Value| {
        let path = Path::parse(item.get("path")?.as_str()?).ok()?;
        Some(meta_key(&path, item.get("property")?.as_str()?))
    };
    list(&mut spec, evolution, "metaDerivations", "MetaDerivations", &meta)?;
    if let Some(schema) = evolution.get("newSchema") {
        spec.insert("schema".into(), schema.clone());
    } else if has(SCHEMA_DIFF).is_some() {
        let mut schema = spec.remove("schema").unwrap_or_else(|| Value::Object(Map::new()));
        super::evolution_schema::apply(&mut schema, evolution).map_err(DiffError::Invalid)?;
        spec.insert("schema".into(), schema);
    }
    super::evolution_views::apply(&mut spec, evolution)?;
    constants(&mut spec, raw, evolution)?;
    if let Some(tests) = evolution.get("newTests") {
        spec.insert("tests".into(), tests.clone());
    }
    match evolution.get("newLibrary") {
        Some(Value::Null) => {
            spec.remove("library");
        }
        Some(library) => {
            spec.insert("library".into(), library.clone());
        }
        None => {}
    }
    if let Some(version) = evolution.get("newVersion") {
        spec.insert("version".into(), version.clone());
    }
    let backfill = match evolution.get("backfill") {
        None => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return invalid("`backfill` is an object of `{\"$.address\": value}`"),
    };
    Ok(Evolved {
        spec: Value::Object(spec),
        backfill,
        touches_schema: has(&["newSchema"]).or(has(SCHEMA_DIFF)).is_some(),
    })
}

/// One list section: `remove<Name>` (keys; an absent one is ignored), then `upsert<Name>` (an
/// existing key replaced in place, a new one appended; a repeated key: the last wins).
pub(super) fn list(
    spec: &mut Map<String, Value>,
    evolution: &Map<String, Value>,
    section: &str,
    name: &str,
    key: &dyn Fn(&Value) -> Option<String>,
) -> Result<(), DiffError> {
    let (remove, upsert) = (format!("remove{name}"), format!("upsert{name}"));
    if !evolution.contains_key(&remove) && !evolution.contains_key(&upsert) {
        return Ok(());
    }
    let mut items = match spec.remove(section) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => return invalid(format!("the live spec's `{section}` is not a list")),
    };
    if let Some(gone) = evolution.get(&remove) {
        let Some(gone) = gone.as_array().filter(|g| g.iter().all(Value::is_string)) else {
            return invalid(format!("`{remove}` is a list of keys (strings)"));
        };
        items.retain(|item| key(item).is_none_or(|k| !gone.iter().any(|g| g.as_str() == Some(k.as_str()))));
    }
    if let Some(new) = evolution.get(&upsert) {
        let Some(new) = new.as_array() else { return invalid(format!("`{upsert}` is a list")) };
        for (n, item) in new.iter().enumerate() {
            let Some(k) = key(item) else {
                return invalid(format!("`{upsert}[{n}]` has no key (path, id or path and property)"));
            };
            match items.iter().position(|old| key(old).as_deref() == Some(k.as_str())) {
                Some(at) => items[at] = item.clone(),
                None => items.push(item.clone()),
            }
        }
    }
    spec.insert(section.to_owned(), Value::Array(items));
    Ok(())
}

/// `newConstants`, or `removeConstants` (refused while the live spec uses `$const.<name>`)
/// then `upsertConstants`.
fn constants(spec: &mut Map<String, Value>, raw: &Value, evolution: &Map<String, Value>) -> Result<(), DiffError> {
    if let Some(constants) = evolution.get("newConstants") {
        spec.insert("constants".into(), constants.clone());
        return Ok(());
    }
    let mut constants = match spec.get("constants") {
        Some(Value::Object(c)) => c.clone(),
        _ => Map::new(),
    };
    if let Some(gone) = evolution.get("removeConstants") {
        let Some(gone) = gone.as_array() else { return invalid("`removeConstants` is a list of names") };
        let text = raw.to_string();
        for name in gone.iter().filter_map(Value::as_str) {
            if uses_constant(&text, name) {
                return invalid(format!(
                    "the constant {name:?} is still used as `$const.{name}`; remove its uses first"
                ));
            }
            constants.shift_remove(name);
        }
    }
    if let Some(new) = evolution.get("upsertConstants") {
        let Some(new) = new.as_object() else { return invalid("`upsertConstants` is an object of `{name: value}`") };
        constants.extend(new.clone());
    }
    if evolution.contains_key("removeConstants") || evolution.contains_key("upsertConstants") {
        spec.insert("constants".into(), Value::Object(constants));
    }
    Ok(())
}

/// Whether `text` reads `$const.<name>` (and not a longer name starting with it).
fn uses_constant(text: &str, name: &str) -> bool {
    let needle = format!("$const.{name}");
    text.match_indices(&needle)
        .any(|(at, _)| text[at + needle.len()..].chars().next().is_none_or(|c| !(c.is_alphanumeric() || c == '_')))
}

/// The key segments of a canonical schema node address (not `$`).
pub fn node_path(text: &str) -> Result<Vec<Seg>, String> {
    let path = Path::parse(text).map_err(|e| e.0)?;
    if path.is_root() {
        return Err("a schema node address cannot be `$`; use `newSchema` to replace the whole schema".into());
    }
    Ok(path.0)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn evolution(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn the_version_is_checked_before_anything_else() {
        let raw = json!({ "id": "m", "version": "1.2.0", "schema": {} });
        let stale =
            evolution(json!({ "expectedVersion": "1.0.0", "bogus": 1, "newSchema": {}, "upsertSchemaNodes": [] }));
        assert_eq!(apply(&raw, &stale), Err(DiffError::Conflict { expected: "1.0.0".into(), actual: "1.2.0".into() }));
        let unknown = apply(&raw, &evolution(json!({ "expectedVersion": "1.2.0", "bogus": 1 })));
        assert!(matches!(unknown, Err(DiffError::Invalid(m)) if m.starts_with("\"bogus\" is not a SpecEvolution key")));
    }

    #[test]
    fn views_are_removed_then_upserted_in_place() {
        let raw = json!({ "id": "m", "schema": {}, "viewDefinition": { "views": [{ "id": "a" }, { "id": "b", "t": 1 }, { "id": "c" }] } });
        let diff = evolution(json!({
            "removeViews": ["a", "zz"],
            "upsertViews": [{ "id": "b", "t": 2 }, { "id": "d" }, { "id": "d", "t": 3 }],
            "newDefaultView": "d",
        }));
        let evolved = apply(&raw, &diff).unwrap();
        assert_eq!(
            evolved.spec["viewDefinition"],
            json!({ "views": [{ "id": "b", "t": 2 }, { "id": "c" }, { "id": "d", "t": 3 }], "defaultView": "d" })
        );
        assert!(!evolved.touches_schema);
    }
}
