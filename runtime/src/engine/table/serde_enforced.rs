//! Whether serde, reading a tool's argument type, refuses all that the type's own inputSchema
//! refuses, so that arguments that read as the type need no check against the schema. Decided
//! once per tool by walking the schema: every keyword must be one serde enforces for the types
//! schemars describes with it (or one that asserts nothing); any other keyword, or a value of one
//! that a type's attributes could have set beyond what serde checks, says no.

use serde_json::{Map, Value};

/// Whether serde enforces the whole of `schema`, an inputSchema generated from the argument type,
/// but for the root's `required`: an attribute (`#[schemars(required)]` on an `Option`) can make
/// a member required and not null that serde lets be absent or null, so the root's required
/// members are checked as each call's arguments are read (see `Names` in `arguments`), and
/// a nested `required` says no.
pub(crate) fn enforced_by_serde(schema: &Value) -> bool {
    let Value::Object(root) = schema else { return false };
    let walk = Walk { defs: root.get("$defs").and_then(Value::as_object) };
    let defs = match root.get("$defs") {
        None => true,
        Some(Value::Object(defs)) => defs.values().all(|def| walk.enforced(def)),
        Some(_) => false,
    };
    defs && root.iter().all(|(keyword, value)| match keyword.as_str() {
        "required" => value.as_array().is_some_and(|names| names.iter().all(Value::is_string)),
        "$defs" => true,
        _ => walk.keyword(keyword, value, root),
    })
}

/// The walk of one schema: its definitions, which `$ref`s name.
struct Walk<'a> {
    defs: Option<&'a Map<String, Value>>,
}

impl Walk<'_> {
    fn enforced(&self, schema: &Value) -> bool {
        let Value::Object(schema) = schema else { return false };
        schema.iter().all(|(keyword, value)| self.keyword(keyword, value, schema))
    }

    fn keyword(&self, keyword: &str, value: &Value, schema: &Map<String, Value>) -> bool {
        let all = |value: &Value| value.as_array().is_some_and(|branches| branches.iter().all(|b| self.enforced(b)));
        match keyword {
            // They assert nothing (`format` is an annotation in JSON Schema 2020-12, which the
            // generated schemas declare).
            "$schema" | "$comment" | "title" | "description" | "default" | "examples" | "deprecated" | "readOnly"
            | "writeOnly" | "format" => true,
            "$ref" => value
                .as_str()
                .and_then(|to| to.strip_prefix("#/$defs/"))
                .is_some_and(|name| self.defs.is_some_and(|defs| defs.contains_key(name))),
            "type" => types(value).is_some(),
            // Unit variants, and `null` for an optional one.
            "enum" => value.as_array().is_some_and(|values| values.iter().all(|v| v.is_string() || v.is_null())),
            // An enum's tag.
            "const" => value.is_string(),
            "properties" => value.as_object().is_some_and(|properties| properties.values().all(|p| self.enforced(p))),
            "items" => self.enforced(value),
            // A map's values (`additionalProperties: false` is a closed struct's, left to the schema).
            "additionalProperties" => value.is_object() && self.enforced(value),
            "anyOf" | "oneOf" => all(value),
            "minimum" | "maximum" => integer_range(schema),
            _ => false,
        }
    }
}

/// The JSON types a `type` keyword names.
fn types(value: &Value) -> Option<Vec<&str>> {
    match value {
        Value::String(one) => Some(vec![one.as_str()]),
        Value::Array(many) => many.iter().map(Value::as_str).collect(),
        _ => None,
    }
}

/// Bounds that are exactly an integer type's range, which serde enforces reading that type; only
/// for 32- and 64-bit types: a narrower range (0 to 255, say) may as well be a wider type's
/// bounds set by an attribute, which serde does not check.
fn integer_range(schema: &Map<String, Value>) -> bool {
    let bounds = (schema.get("minimum"), schema.get("maximum"));
    let (Some(min), Some(max)) = bounds else { return false };
    let ranges: [(Value, Value); 4] = [
        (i32::MIN.into(), i32::MAX.into()),
        (i64::MIN.into(), i64::MAX.into()),
        (0.into(), u32::MAX.into()),
        (0.into(), u64::MAX.into()),
    ];
    schema.get("type") == Some(&Value::from("integer")) && ranges.iter().any(|(lo, hi)| lo == min && hi == max)
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde_json::json;

    use super::enforced_by_serde;
    use crate::api::schema::input_schema_of;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    enum Unit {
        A,
        B,
    }

    /// What serde refuses of these types is all their schemas refuse.
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Enforced {
        a: f64,
        count: u32,
        offset: i64,
        name: String,
        unit: Unit,
        maybe: Option<Unit>,
        optional_inner: Option<Unit>,
        map: std::collections::BTreeMap<String, Vec<bool>>,
        #[serde(default)]
        flag: bool,
    }

    #[test]
    fn a_schema_serde_enforces_whole() {
        assert!(enforced_by_serde(&input_schema_of::<Enforced>()), "{:#}", input_schema_of::<Enforced>());
    }

    /// Each of these says something serde may not check.
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Byte {
        small: u8,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Ranged {
        #[schemars(range(min = 1))]
        at_least_one: u32,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Patterned {
        #[schemars(regex(pattern = "^a"))]
        code: String,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct RequiredOption {
        #[schemars(required)]
        maybe: Option<String>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct NestedRequired {
        inner: RequiredOption,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Set {
        items: std::collections::BTreeSet<String>,
    }

    #[test]
    fn a_keyword_serde_may_not_check_says_no() {
        for schema in [
            input_schema_of::<Byte>(),
            input_schema_of::<Ranged>(),
            input_schema_of::<Patterned>(),
            input_schema_of::<NestedRequired>(),
            input_schema_of::<Set>(),
            input_schema_of::<crate::api::expansion::NoArgs>(),
            json!({ "type": "object", "properties": { "a": { "type": "string", "minLength": 1 } } }),
        ] {
            assert!(!enforced_by_serde(&schema), "{schema:#}");
        }
    }

    /// `format` passes as an annotation: the validator asserts none in JSON Schema 2020-12.
    #[test]
    fn format_asserts_nothing() {
        let schema = input_schema_of::<Enforced>();
        let mut email = json!({ "type": "string", "format": "email" });
        email["$schema"] = schema["$schema"].clone();
        assert!(jsonschema::validator_for(&email).unwrap().is_valid(&json!("not an address")));
    }
}
