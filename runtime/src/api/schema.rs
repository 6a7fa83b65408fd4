//! JSON Schema 2020-12 for argument and result types, through schemars, in the form hosts
//! accept (no `true` subschemas, no formats of schemars' own).
//!
//! ```
//! use schemars::JsonSchema;
//! use tooltable::schema::{input_schema_of, is_object_schema};
//!
//! #[derive(JsonSchema)]
//! #[allow(dead_code)]
//! struct Page {
//!     /// How many items, at most.
//!     limit: u8,
//! }
//!
//! let schema = input_schema_of::<Page>();
//! assert!(is_object_schema(&schema));
//! assert_eq!(schema["properties"]["limit"]["maximum"], 255, "a `u8` says its range, not `format: uint8`");
//! assert!(schema["properties"]["limit"].get("format").is_none());
//! ```

use schemars::generate::SchemaSettings;
use schemars::transform::{Transform, transform_subschemas};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};

/// The formats JSON Schema 2020-12 defines. schemars also writes its own (`uint32`, `double`,
/// ...), which validators ignore and hosts warn about on every listing; `minimum: 0` and
/// `type: integer` already say what they meant.
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Makes every schema one a host accepts: a subschema written `true` becomes `{}` (the MCP schema
/// wants each property's schema to be an object, and a host drops the whole `tools/list` for one
/// that is not), a property schema `false` becomes `{"not": {}}`, and non-standard formats go.
#[derive(Clone)]
struct HostCompatible;

impl Transform for HostCompatible {
    fn transform(&mut self, schema: &mut Schema) {
        if schema.as_bool() == Some(true) {
            *schema = Schema::default();
        }
        if let Some(obj) = schema.as_object_mut() {
            if obj.get("format").and_then(Value::as_str).is_some_and(|f| !STANDARD_FORMATS.contains(&f)) {
                let range = obj.remove("format").as_ref().and_then(Value::as_str).and_then(integer_range);
                if let Some((min, max)) = range {
                    obj.entry("minimum").or_insert(min);
                    obj.entry("maximum").or_insert(max);
                }
            }
            if let Some(Value::Object(props)) = obj.get_mut("properties") {
                for prop in props.values_mut().filter(|p| **p == Value::Bool(false)) {
                    *prop = serde_json::json!({ "not": {} });
                }
            }
        }
        transform_subschemas(self, schema);
    }
}

/// The range of a Rust integer type schemars names by its format, said with `minimum` and
/// `maximum` once the format goes: a `u8` field refuses 300 and an `i64` one 10^30, and the
/// schema must say so. 128-bit types have no JSON integer bound serde reads, so none is said.
fn integer_range(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "uint64" | "uint" => (0.into(), u64::MAX.into()),
        _ => return None,
    })
}

fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().with_transform(HostCompatible).into_generator()
}

/// The schema of `T` as JSON Schema 2020-12: `$schema` first, `$defs` kept, and no root `title`
/// (schemars sets it to the Rust type's name, which says nothing to a client).
pub fn schema_of<T: JsonSchema>() -> Value {
    tidy_root(generator().into_root_schema_for::<T>().to_value())
}

/// Makes a schema written by hand (a dynamic tool's, a forwarded capability's) host-compatible in
/// the same way as a generated one.
/// Anything that is no schema (neither an object nor a boolean) is left as it is.
pub fn host_compatible(schema: &mut Value) {
    if let Ok(schema) = <&mut Schema>::try_from(schema) {
        HostCompatible.transform(schema);
    }
}

fn tidy_root(schema: Value) -> Value {
    let Value::Object(mut root) = schema else { return schema };
    root.remove("title");
    let mut ordered = Map::with_capacity(root.len());
    if let Some(dialect) = root.remove("$schema") {
        ordered.insert("$schema".into(), dialect);
    }
    ordered.extend(root);
    Value::Object(ordered)
}

/// The composition keywords at an inputSchema's root. The Anthropic API (under Claude Code and
/// Claude Desktop) refuses a request whose tool list has one, every request and not only the
/// tool's calls; a root `not` or `if`/`then`/`else` says the same rules and is accepted.
pub fn root_composition(input_schema: &Value) -> Vec<&'static str> {
    ["allOf", "anyOf", "oneOf"].into_iter().filter(|k| input_schema.get(*k).is_some()).collect()
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

/// The outputSchema of a tool that declares its error bodies: an object that is the success
/// value or one of the errors, so that a client validating `structuredContent` accepts both. The
/// two schemas' `$defs` are merged; a name both define differently is renamed in the errors'.
pub fn success_or_errors(success: &Value, errors: &Value) -> Value {
    let (mut success, mut errors) = (success.clone(), errors.clone());
    let mut defs = take_defs(&mut success);
    let mut error_defs = take_defs(&mut errors);
    let clashes: Vec<String> = error_defs
        .iter()
        .filter(|(name, def)| defs.get(*name).is_some_and(|d| d != *def))
        .map(|(n, _)| n.clone())
        .collect();
    for name in clashes {
        let renamed = format!("{name}Error");
        rename_ref(&mut errors, &name, &renamed);
        error_defs.values_mut().for_each(|def| rename_ref(def, &name, &renamed));
        if let Some(def) = error_defs.remove(&name) {
            error_defs.insert(renamed, def);
        }
    }
    defs.extend(error_defs);
    let dialect = success.as_object_mut().and_then(|o| o.remove("$schema"));
    if let Some(o) = errors.as_object_mut() {
        o.remove("$schema");
    }
    let mut root = Map::new();
    if let Some(dialect) = dialect {
        root.insert("$schema".into(), dialect);
    }
    root.insert("type".into(), "object".into());
    root.insert("anyOf".into(), Value::Array(vec![success, errors]));
    if !defs.is_empty() {
        root.insert("$defs".into(), Value::Object(defs));
    }
    Value::Object(root)
}

fn take_defs(schema: &mut Value) -> Map<String, Value> {
    match schema.as_object_mut().and_then(|o| o.remove("$defs")) {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    }
}

fn rename_ref(schema: &mut Value, from: &str, to: &str) {
    let (old, new) = (format!("#/$defs/{from}"), format!("#/$defs/{to}"));
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if o.get("$ref").and_then(Value::as_str) == Some(&old) {
                    o.insert("$ref".into(), Value::String(new.clone()));
                }
                stack.extend(o.values_mut());
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Integers {
        small: u8,
        signed: i32,
        #[schemars(range(min = 1))]
        at_least_one: u16,
        wide: i128,
    }

    #[test]
    fn root_composition_is_found_only_at_the_root() {
        assert_eq!(super::root_composition(&json!({ "type": "object", "anyOf": [], "oneOf": [] })), ["anyOf", "oneOf"]);
        let nested = json!({ "type": "object", "properties": { "a": { "allOf": [] } }, "not": { "anyOf": [] } });
        assert!(super::root_composition(&nested).is_empty());
    }

    #[test]
    fn an_integer_format_becomes_its_range() {
        let schema = super::schema_of::<Integers>();
        let props = &schema["properties"];
        assert_eq!(props["small"], json!({ "type": "integer", "minimum": 0, "maximum": 255 }));
        assert_eq!(props["signed"], json!({ "type": "integer", "minimum": i32::MIN, "maximum": i32::MAX }));
        assert_eq!(props["at_least_one"], json!({ "type": "integer", "minimum": 1, "maximum": u16::MAX }));
        assert_eq!(props["wide"], json!({ "type": "integer" }), "no bound serde could read");
    }
}
