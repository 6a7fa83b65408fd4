//! The ModelSpec and SpecEvolution JSON Schemas, embedded in `create_model`'s and
//! `evolve_spec`'s inputSchema so that a generating model sees the exact structure it must
//! produce, and served as resources. The SpecEvolution schema is built from the ModelSpec's own
//! sections, so the two never disagree.

use std::sync::LazyLock;

use serde_json::{Map, Value, json};

static MODEL_SPEC: LazyLock<Value> =
    LazyLock::new(|| serde_json::from_str(include_str!("model-spec.schema.json")).unwrap_or(Value::Bool(true)));

static SPEC_EVOLUTION: LazyLock<Value> = LazyLock::new(spec_evolution_schema);

/// The ModelSpec schema as a document of its own.
pub fn model_spec() -> &'static Value {
    &MODEL_SPEC
}

/// The SpecEvolution schema as a document of its own.
pub fn spec_evolution() -> &'static Value {
    &SPEC_EVOLUTION
}

/// A list of test cases, as a ModelSpec's `tests` section states them (for `test_spec`'s own).
pub fn test_cases(schema: &mut schemars::Schema) {
    if let Some(items) = model_spec().pointer("/properties/tests/items") {
        schema.insert("items".into(), items.clone());
    }
}

/// An object schema whose property `field` is a ModelSpec, beside `others`.
pub fn with_spec_property(field: &str, description: &str, others: Value) -> Value {
    with_document(model_spec(), field, description, others)
}

/// An object schema whose property `field` is a SpecEvolution, beside `others`.
pub fn with_evolution_property(field: &str, description: &str, others: Value) -> Value {
    with_document(spec_evolution(), field, description, others)
}

/// An object schema whose property `field` is `document` (its `$defs` lifted to the root, where
/// its `$ref`s resolve), beside `others`; `field` is required.
fn with_document(document: &Value, field: &str, description: &str, others: Value) -> Value {
    let mut document = document.clone();
    let defs = document.as_object_mut().and_then(|m| {
        m.remove("$schema");
        m.insert("description".into(), json!(description));
        m.remove("$defs")
    });
    let mut properties = Map::new();
    if let Value::Object(extra) = others {
        properties.extend(extra);
    }
    properties.insert(field.to_owned(), document);
    let required: Vec<&String> = properties.keys().collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
        "$defs": defs.unwrap_or_else(|| json!({})),
    })
}

fn spec_evolution_schema() -> Value {
    let spec = model_spec();
    let section = |name: &str| spec["properties"].get(name).cloned().unwrap_or_else(|| json!({}));
    let keys = |what: &str| json!({ "type": "array", "items": { "type": "string" }, "description": what });
    let described = |mut schema: Value, what: &str| {
        schema["description"] = json!(what);
        schema
    };
    let views = spec["properties"]["viewDefinition"]["properties"]["views"].clone();
    let list_of = |what: &str, required: Value, properties: Value| json!({ "type": "array", "description": what, "items": { "type": "object", "required": required, "properties": properties } });
    let upsert_components = list_of(
        "Components by id: an existing one without parentId or beforeId is replaced in place; with them it moves (never under itself); a new one is inserted under parentId (else at the top), before beforeId (else appended).",
        json!(["viewId", "component"]),
        json!({
            "viewId": { "type": "string" },
            "parentId": { "type": "string" },
            "beforeId": { "type": "string" },
            "component": { "type": "object", "required": ["id"], "properties": { "id": { "type": "string" } } },
        }),
    );
    let remove_components = list_of(
        "Components removed with their children; an unknown view or component is an error.",
        json!(["viewId", "componentId"]),
        json!({ "viewId": { "type": "string" }, "componentId": { "type": "string" } }),
    );
    let upsert_schema_nodes = list_of(
        "Schema nodes set at canonical addresses ($.a.b, $.items[*]), intermediate properties and items created; never through a $ref.",
        json!(["path", "schema"]),
        json!({
            "path": { "type": "string" },
            "schema": { "type": "object" },
            "required": { "type": ["boolean", "null"], "description": "true or false adds or removes the field from its parent's required; null leaves it." },
        }),
    );
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "SpecEvolution",
        "description": "A change to a live model's spec. Every key is optional. In each list section removals apply first (an absent key is ignored), then upserts (an existing key is replaced in place, a new one appended). A wholesale key (newSchema, newViewDefinition, newConstants) cannot be mixed with its targeted keys.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "newVersion": { "type": "string", "description": "The version after the evolution (semver); the old one stays when absent." },
            "expectedVersion": { "type": "string", "description": "The version you read; a different live version is a Version conflict and nothing changes." },
            "upsertDerivations": described(section("derivations"), "Derivations to add or replace, by path."),
            "removeDerivations": keys("The paths of derivations to remove."),
            "upsertConstraints": described(section("constraints"), "Constraints to add or replace, by id."),
            "removeConstraints": keys("The ids of constraints to remove."),
            "upsertEffects": described(section("effects"), "Effects to add or replace, by id."),
            "removeEffects": keys("The ids of effects to remove."),
            "upsertMetaDerivations": described(section("metaDerivations"), "Meta derivations to add or replace, by path and property."),
            "removeMetaDerivations": keys("The meta keys to remove: `$.path#snake_property`, e.g. `$.amount#min_length`."),
            "upsertDefaultValues": described(section("defaultValues"), "Default values to add or replace, by path."),
            "removeDefaultValues": keys("The paths of default values to remove."),
            "newSchema": described(section("schema"), "A whole new schema; every held value must satisfy it."),
            "upsertSchemaDefs": { "type": "object", "description": "`{name: schema}` added to or replaced in the schema's $defs (null is an error)." },
            "removeSchemaDefs": keys("Names removed from $defs, last; one still referenced is an error."),
            "upsertSchemaNodes": upsert_schema_nodes,
            "removeSchemaNodes": keys("Canonical addresses of schema nodes to drop, with their parent's required entry; an absent one is an error."),
            "newViewDefinition": described(section("viewDefinition"), "A whole new view definition."),
            "upsertViews": described(views, "Views to add or replace, by id."),
            "removeViews": keys("The ids of views to remove."),
            "upsertComponents": upsert_components,
            "removeComponents": remove_components,
            "newDefaultView": { "type": "string", "description": "The id of the view get_view shows by default." },
            "newConstants": described(section("constants"), "All new constants."),
            "upsertConstants": { "type": "object", "description": "`{name: value}` added to or replaced in the constants." },
            "removeConstants": keys("Constant names to remove; one the spec still uses as $const.<name> is an error."),
            "newTests": described(section("tests"), "All new embedded tests."),
            "newLibrary": described(section("library"), "A new library; null removes it."),
            "backfill": { "type": "object", "description": "`{\"$.address\": value}` written where the model holds no value (absent or null), in one ordinary cycle." },
        },
        "$defs": spec.get("$defs").cloned().unwrap_or_else(|| json!({})),
    })
}

#[cfg(test)]
mod tests {
    use crate::engine::evolution::KEYS;

    #[test]
    fn the_embedded_schemas_compile() {
        assert!(super::model_spec().get("properties").is_some());
        let schema = super::with_spec_property("spec", "A spec.", serde_json::json!({}));
        assert!(jsonschema::draft202012::new(&schema).is_ok());
        let schema = super::with_evolution_property("evolution", "An evolution.", serde_json::json!({}));
        assert!(jsonschema::draft202012::new(&schema).is_ok());
    }

    #[test]
    fn the_evolution_schema_names_every_key_the_evolution_reads() {
        let properties = super::spec_evolution()["properties"].as_object().unwrap();
        let named: Vec<&str> = properties.keys().map(String::as_str).collect();
        assert_eq!(named, KEYS);
    }
}
