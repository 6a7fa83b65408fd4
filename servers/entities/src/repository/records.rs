//! The records of one entity: read from its matched files (one a file, or many picked by a
//! selector) and its inline data, given identifiers and defaults, validated, checked for
//! duplicate identifiers and unique values, sorted by identifier.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};
use serde_json_path::JsonPath;

use super::error::LoadError;
use super::roots;
use super::schema::Schema;
use super::validation::RecordValidator;

#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub id: String,
    pub fields: Map<String, Value>,
    /// Workspace-relative; `None` for inline data.
    pub file: Option<String>,
}

impl Record {
    /// Whether the record is inline data of its definition.
    pub fn inline(&self) -> bool {
        self.file.is_none()
    }

    /// Inline records and records under an external root cannot be written back.
    pub fn read_only(&self) -> bool {
        self.file.as_deref().is_none_or(roots::is_external)
    }
}

/// An entity's records, sorted by identifier.
#[derive(Debug, Default)]
pub struct Records {
    list: Vec<Record>,
    by_id: HashMap<String, usize>,
}

impl Records {
    pub fn all(&self) -> &[Record] {
        &self.list
    }

    pub fn get(&self, id: &str) -> Option<&Record> {
        self.by_id.get(id).map(|&i| &self.list[i])
    }
}

/// A file to take records from: workspace-relative path, parsed document, parsed include
/// selector (`None` for one record a file).
pub struct RecordFile<'a> {
    pub relative: &'a str,
    pub doc: &'a Value,
    pub selector: Option<&'a JsonPath>,
}

/// Where a record came from, for its identifier and for messages.
struct Origin<'a> {
    file: Option<&'a str>,
    /// Shown in messages: the file, with the record's position when it holds many.
    shown: String,
    /// The file name's stem, when the file holds this one record (a generated identifier).
    stem: Option<&'a str>,
}

pub fn load(
    schema: &Schema,
    validator: &RecordValidator,
    definition: &str,
    files: &[RecordFile],
) -> Result<Records, LoadError> {
    let mut records = Vec::new();
    for file in files {
        for (origin, fields) in split(file)? {
            let record =
                build(schema, validator, fields, &origin).map_err(|reason| LoadError::new(file.relative, reason))?;
            records.push((origin.shown, record));
        }
    }
    for (i, value) in schema.inline_data.iter().flatten().enumerate() {
        let origin = Origin { file: None, shown: format!("{definition} (InlineData[{i}])"), stem: None };
        let fields = as_object(value.clone(), &origin.shown).map_err(|reason| LoadError::new(definition, reason))?;
        let record = build(schema, validator, fields, &origin)
            .map_err(|reason| LoadError::new(definition, format!("InlineData[{i}]: {reason}")))?;
        records.push((origin.shown, record));
    }
    check_unique(schema, &records)?;
    index(records)
}

/// A record's fields as read, and where they were read.
type Picked<'a> = (Origin<'a>, Map<String, Value>);

/// The records of one file, with their origins.
fn split<'a>(file: &RecordFile<'a>) -> Result<Vec<Picked<'a>>, LoadError> {
    let fail = |reason: String| LoadError::new(file.relative, reason);
    let Some(path) = file.selector else {
        let stem = Path::new(file.relative).file_stem().and_then(|s| s.to_str());
        let origin = Origin { file: Some(file.relative), shown: file.relative.to_owned(), stem };
        let fields = as_object(file.doc.clone(), "the file").map_err(fail)?;
        return Ok(vec![(origin, fields)]);
    };
    path.query_located(file.doc)
        .into_iter()
        .map(|node| {
            let shown = format!("{} (at {})", file.relative, node.location());
            let fields = as_object(node.node().clone(), &shown).map_err(fail)?;
            Ok((Origin { file: Some(file.relative), shown, stem: None }, fields))
        })
        .collect()
}

fn as_object(value: Value, what: &str) -> Result<Map<String, Value>, String> {
    match value {
        Value::Object(map) => Ok(map),
        Value::Array(_) => Err(format!(
            "{what} holds a list, not a record; an include `Selector` such as \"$[*]\" picks records out of it"
        )),
        other => Err(format!("{what} holds {}, not a record (a mapping of fields)", kind_of(&other))),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// One record: its identifier (derived when it is the file path or generated), defaults, validation.
fn build(
    schema: &Schema,
    validator: &RecordValidator,
    mut fields: Map<String, Value>,
    origin: &Origin,
) -> Result<Record, String> {
    let key = &schema.identifier.field;
    let id = if schema.identifier.is_path() {
        let path = origin.file.ok_or("a `$path` identifier needs a record file; inline data has none")?;
        fields.shift_insert(0, key.clone(), Value::String(path.to_owned()));
        path.to_owned()
    } else {
        match (fields.get(key), origin.stem) {
            (Some(Value::String(id)), _) => id.clone(),
            (Some(other), _) => {
                return Err(format!("field `{key}` (the identifier) must be a string, not {}", kind_of(other)));
            }
            (None, Some(stem)) if schema.identifier.generated => {
                fields.shift_insert(0, key.clone(), Value::String(stem.to_owned()));
                stem.to_owned()
            }
            (None, _) => return Err(format!("field `{key}` (the identifier) is missing")),
        }
    };
    for (name, field) in &schema.fields {
        if let Some(default) = &field.default
            && !fields.contains_key(name)
        {
            fields.insert(name.clone(), default.clone());
        }
    }
    let record = Value::Object(fields);
    validator.check(&record)?;
    let Value::Object(fields) = record else { unreachable!("built as an object just above") };
    Ok(Record { id, fields, file: origin.file.map(str::to_owned) })
}

/// Fields marked `Unique` hold a different value in every record.
fn check_unique(schema: &Schema, records: &[(String, Record)]) -> Result<(), LoadError> {
    for (name, _) in schema.fields.iter().filter(|(_, f)| f.unique) {
        let mut seen: HashMap<String, &str> = HashMap::new();
        for (shown, record) in records {
            let Some(value) = record.fields.get(name) else { continue };
            if let Some(first) = seen.insert(value.to_string(), shown) {
                let file = record.file.as_deref().unwrap_or_default();
                return Err(LoadError::new(file, format!("field `{name}` is unique, but {value} is also in {first}")));
            }
        }
    }
    Ok(())
}

fn index(mut records: Vec<(String, Record)>) -> Result<Records, LoadError> {
    // A stable sort keeps duplicates in reading order, so the message names them the same way each time.
    records.sort_by(|a, b| a.1.id.cmp(&b.1.id));
    for pair in records.windows(2) {
        let ((first, a), (second, b)) = (&pair[0], &pair[1]);
        if a.id == b.id {
            let file = b.file.as_deref().unwrap_or_default();
            return Err(LoadError::new(
                file,
                format!("the identifier {:?} is declared twice: in {first} and in {second}", a.id),
            ));
        }
    }
    let list: Vec<Record> = records.into_iter().map(|(_, r)| r).collect();
    let by_id = list.iter().enumerate().map(|(i, r)| (r.id.clone(), i)).collect();
    Ok(Records { list, by_id })
}
