//! The ModelSpec JSON Schema, embedded in `create_model`'s inputSchema so that a generating
//! model sees the exact structure it must produce.

use std::sync::LazyLock;

use serde_json::{Value, json};

static MODEL_SPEC: LazyLock<Value> =
    LazyLock::new(|| serde_json::from_str(include_str!("model-spec.schema.json")).unwrap_or(Value::Bool(true)));

/// The ModelSpec schema as a document of its own.
pub fn model_spec() -> &'static Value {
    &MODEL_SPEC
}

/// An object schema whose property `field` is a ModelSpec (the spec's `$defs` lifted to the
/// root, where its `$ref`s resolve), beside `others`.
pub fn with_spec_property(field: &str, description: &str, others: Value) -> Value {
    let mut spec = model_spec().clone();
    let defs = spec.as_object_mut().and_then(|m| {
        m.remove("$schema");
        m.insert("description".into(), json!(description));
        m.remove("$defs")
    });
    let mut properties = serde_json::Map::new();
    properties.insert(field.to_owned(), spec);
    if let Value::Object(extra) = others {
        properties.extend(extra);
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        "required": [field],
        "additionalProperties": false,
        "$defs": defs.unwrap_or_else(|| json!({})),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_schema_compiles() {
        assert!(super::model_spec().get("properties").is_some());
        let schema = super::with_spec_property("spec", "A spec.", serde_json::json!({}));
        assert!(jsonschema::draft202012::new(&schema).is_ok());
    }
}
