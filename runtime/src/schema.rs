//! JSON Schema 2020-12 for argument and result types, through schemars.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The schema of `T` as JSON Schema 2020-12: `$schema` first, `$defs` kept, and no root `title`
/// (schemars sets it to the Rust type's name, which says nothing to a client).
pub fn schema_of<T: JsonSchema>() -> Value {
    let schema = SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>().to_value();
    let Value::Object(mut root) = schema else { return schema };
    root.remove("title");
    let mut ordered = Map::with_capacity(root.len());
    if let Some(dialect) = root.remove("$schema") {
        ordered.insert("$schema".into(), dialect);
    }
    ordered.extend(root);
    Value::Object(ordered)
}

/// An inputSchema: the argument type's schema, whose root always says `type: object`.
pub fn input_schema_of<T: JsonSchema>() -> Value {
    let mut schema = schema_of::<T>();
    if let Value::Object(root) = &mut schema {
        root.entry("type").or_insert_with(|| Value::from("object"));
    }
    schema
}

/// An outputSchema: the result type's schema when it describes an object, else `None`
/// (arrays and scalars carry no structuredContent, so they declare no outputSchema).
pub fn object_schema_of<T: JsonSchema>() -> Option<Value> {
    let schema = schema_of::<T>();
    is_object_schema(&schema).then_some(schema)
}

/// Whether a schema's root says `type: object` (and nothing else).
pub fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// The names of the root properties, when the schema lists them and admits no others by pattern,
/// composition or reference; `None` means any name may be valid, so none is rejected by name.
pub(crate) fn closed_property_names(schema: &Value) -> Option<&Map<String, Value>> {
    let root = schema.as_object()?;
    let open = ["patternProperties", "allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas"]
        .iter()
        .any(|k| root.contains_key(*k))
        || matches!(root.get("additionalProperties"), Some(v) if v != &Value::Bool(false))
        || matches!(root.get("unevaluatedProperties"), Some(v) if v != &Value::Bool(false));
    if open {
        return None;
    }
    root.get("properties")?.as_object()
}
