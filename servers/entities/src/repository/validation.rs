//! Record validation: a JSON Schema generated from the entity's fields (closed when it declares
//! any), and the definition's own `JSONSchema` file besides. A failure names the field.

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use serde_json::{Map, Value, json};

use super::schema::{Field, Schema};

pub struct RecordValidator {
    generated: Validator,
    custom: Option<Validator>,
}

impl RecordValidator {
    /// `custom` is the parsed `JSONSchema` file, when the definition names one.
    pub fn new(schema: &Schema, custom: Option<&Value>) -> Result<RecordValidator, String> {
        let generated =
            compile(&record_schema(schema)).map_err(|e| format!("the fields do not form a valid schema: {e}"))?;
        let custom = custom
            .map(|c| compile(c).map_err(|e| format!("{}: not a valid JSON Schema: {e}", schema.json_schema)))
            .transpose()?;
        Ok(RecordValidator { generated, custom })
    }

    /// Checks one record; the error names the offending field.
    pub fn check(&self, record: &Value) -> Result<(), String> {
        self.generated.validate(record).map_err(|e| describe(&e))?;
        if let Some(custom) = &self.custom {
            custom.validate(record).map_err(|e| format!("{} (from `JSONSchema`)", describe(&e)))?;
        }
        Ok(())
    }
}

fn compile(schema: &Value) -> Result<Validator, ValidationError<'static>> {
    jsonschema::options().should_validate_formats(true).build(schema)
}

fn describe(e: &ValidationError<'_>) -> String {
    let at = e.instance_path().as_str().trim_start_matches('/').replace('/', ".");
    let field = |name: &str| if at.is_empty() { name.to_owned() } else { format!("{at}.{name}") };
    match e.kind() {
        ValidationErrorKind::Required { property } => {
            format!("field `{}` is required but missing", field(property.as_str().unwrap_or_default()))
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            format!(
                "field `{}` is not declared in the definition",
                field(unexpected.first().map_or("", String::as_str))
            )
        }
        _ if at.is_empty() => format!("the record is invalid: {e}"),
        _ => format!("field `{at}` is invalid: {e}"),
    }
}

/// The JSON Schema a record of `schema` must satisfy.
fn record_schema(schema: &Schema) -> Value {
    let mut out = object_schema(&schema.fields);
    let id = &schema.identifier;
    let mut id_rule = json!({ "type": "string" });
    if !id.pattern.is_empty() {
        id_rule["pattern"] = json!(id.pattern);
    }
    // The identifier field is always allowed (it may be generated), and always checked against `Pattern`.
    if let Some(properties) = out["properties"].as_object_mut() {
        properties.entry(id.field.clone()).or_insert_with(|| json!({}));
    }
    out["allOf"] = json!([{ "properties": { (id.field.clone()): id_rule } }]);
    out
}

fn object_schema(fields: &indexmap::IndexMap<String, Field>) -> Value {
    let properties: Map<String, Value> = fields.iter().map(|(name, f)| (name.clone(), field_schema(f))).collect();
    let required: Vec<&String> = fields.iter().filter(|(_, f)| f.required).map(|(name, _)| name).collect();
    let mut out = json!({ "type": "object", "properties": properties, "required": required });
    if !fields.is_empty() {
        out["additionalProperties"] = json!(false);
    }
    out
}

fn field_schema(field: &Field) -> Value {
    let mut one = match field.kind.as_str() {
        "object" if !field.properties.is_empty() => object_schema(&field.properties),
        "object" => json!({ "type": "object" }),
        "reference" => json!({ "type": "string" }),
        "any" => json!({}),
        scalar => json!({ "type": scalar }),
    };
    if let Some(values) = &field.r#enum {
        one["enum"] = json!(values);
    }
    if !field.pattern.is_empty() {
        one["pattern"] = json!(field.pattern);
    }
    if !field.format.is_empty() {
        one["format"] = json!(field.format);
    }
    if field.repeated { json!({ "type": "array", "items": one }) } else { one }
}
