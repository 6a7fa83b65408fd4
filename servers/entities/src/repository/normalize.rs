//! From a definition and its ancestors' definitions to the normalized schema: defaults filled in,
//! inherited fields merged, every setting checked.

use indexmap::IndexMap;
use serde_json_path::JsonPath;

use super::definition::{Definition, FieldSpec};
use super::schema::{FIELD_TYPES, Field, Identifier, Include, Schema, WRITE_FORMATS, Write};

/// The normalized schema of `chain[0]`, whose ancestors follow it in `chain` (parent first).
/// `Source`, `Ancestors` and `Descendants` are left for the caller to fill.
pub fn normalize(name: &str, chain: &[&Definition]) -> Result<Schema, String> {
    let own = chain[0];
    if let Some(written) = &own.name
        && written != name
    {
        return Err(format!("`Name` is {written:?} but the file defines {name:?}"));
    }
    // Inherited fields come first, in the root ancestor's order; a redefined field keeps its place.
    let mut fields = IndexMap::new();
    for def in chain.iter().rev() {
        for (field_name, spec) in &def.fields {
            fields.insert(field_name.clone(), field(field_name, spec, field_name)?);
        }
    }
    let spec = chain.iter().find_map(|d| d.identifier.clone()).unwrap_or_default();
    let identifier = Identifier { field: spec.field, generated: spec.generated, pattern: spec.pattern };
    let include = own
        .include
        .iter()
        .map(|spec| {
            let (path, selector) = spec.path_and_selector();
            let query = parse_selector(selector, &identifier)?;
            Ok(Include { path: path.to_owned(), selector: selector.to_owned(), query })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Schema {
        name: name.to_owned(),
        description: own.description.clone(),
        identifier,
        field_order: fields.keys().cloned().collect(),
        fields,
        include,
        inline_data: own.inline_data.clone(),
        source: String::new(),
        extends: own.extends.clone(),
        ancestors: None,
        descendants: None,
        write: write(chain)?,
        json_schema: chain.iter().map(|d| d.json_schema.as_str()).find(|s| !s.is_empty()).unwrap_or("").to_owned(),
    })
}

/// The parsed `Selector`, or `None` when there is none.
fn parse_selector(selector: &str, identifier: &Identifier) -> Result<Option<JsonPath>, String> {
    if selector.is_empty() {
        return Ok(None);
    }
    if identifier.is_path() {
        return Err(format!(
            "a `Selector` ({selector:?}) cannot be used with the `$path` identifier: a file holds one record"
        ));
    }
    JsonPath::parse(selector).map(Some).map_err(|e| format!("`Selector` {selector:?} is not a JSON Path: {e}"))
}

fn write(chain: &[&Definition]) -> Result<Write, String> {
    let spec = chain.iter().find_map(|d| d.write.as_ref());
    let format = spec.and_then(|w| w.format.clone()).unwrap_or_else(|| "yaml".to_owned());
    if !WRITE_FORMATS.contains(&format.as_str()) {
        return Err(format!("`Write.Format` is {format:?}; it must be one of {}", WRITE_FORMATS.join(", ")));
    }
    let template = spec.and_then(|w| w.template.clone()).unwrap_or_else(|| format!("{{id}}.{format}"));
    Ok(Write { format, template })
}

/// One field; `path` names it in messages (`address.city` for a nested one).
fn field(name: &str, spec: &FieldSpec, path: &str) -> Result<Field, String> {
    let kind = spec.kind.clone().unwrap_or_else(|| "string".to_owned());
    if !FIELD_TYPES.contains(&kind.as_str()) {
        return Err(format!("field `{path}` has `Type` {kind:?}; it must be one of {}", FIELD_TYPES.join(", ")));
    }
    match (&spec.reference_types, kind.as_str()) {
        (None, "reference") => return Err(format!("field `{path}` is a reference and needs `ReferenceTypes`")),
        (Some(types), "reference") if types.is_empty() => {
            return Err(format!("field `{path}` has an empty `ReferenceTypes`"));
        }
        (Some(_), other) if other != "reference" => {
            return Err(format!("field `{path}` has `ReferenceTypes` but its `Type` is {other:?}, not \"reference\""));
        }
        _ => {}
    }
    if !spec.properties.is_empty() && kind != "object" {
        return Err(format!("field `{path}` has `Properties` but its `Type` is {kind:?}, not \"object\""));
    }
    let properties = spec
        .properties
        .iter()
        .map(|(n, s)| Ok((n.clone(), field(n, s, &format!("{path}.{n}"))?)))
        .collect::<Result<IndexMap<_, _>, String>>()?;
    Ok(Field {
        name: name.to_owned(),
        kind,
        required: spec.required,
        repeated: spec.repeated,
        unique: spec.unique,
        r#enum: spec.r#enum.clone(),
        pattern: spec.pattern.clone(),
        format: spec.format.clone(),
        default: spec.default.clone(),
        reference_types: spec.reference_types.clone(),
        description: spec.description.clone(),
        property_order: (!properties.is_empty()).then(|| properties.keys().cloned().collect()),
        properties,
    })
}
