//! The normalized schema of one entity, exactly as `entity_show` prints it: every key present,
//! absent lists as `null`, absent text as `""`, in a fixed key order.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use serde_json_path::JsonPath;

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct Schema {
    pub name: String,
    pub description: String,
    pub identifier: Identifier,
    /// Own and inherited fields, in `FieldOrder`.
    pub fields: IndexMap<String, Field>,
    pub field_order: Vec<String>,
    pub include: Vec<Include>,
    pub inline_data: Option<Vec<Value>>,
    /// The absolute path of the definition file.
    pub source: String,
    pub extends: String,
    /// Parent first, then its parent, and so on.
    pub ancestors: Option<Vec<String>>,
    /// Every entity that extends this one, directly or not, sorted by name.
    pub descendants: Option<Vec<String>>,
    pub write: Write,
    #[serde(rename = "JSONSchema")]
    pub json_schema: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct Identifier {
    /// The field holding the identifier, or `$path` for the record file's workspace-relative path.
    pub field: String,
    /// Whether a record may omit the field, its identifier then being its file name's stem.
    pub generated: bool,
    /// A regular expression every identifier must match, or empty.
    pub pattern: String,
}

/// The identifier field that stands for the record file's workspace-relative path.
const PATH_IDENTIFIER: &str = "$path";

impl Identifier {
    pub fn is_path(&self) -> bool {
        self.field == PATH_IDENTIFIER
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct Field {
    pub name: String,
    /// One of `FieldType::NAMES`.
    #[serde(rename = "Type")]
    pub kind: String,
    pub required: bool,
    pub repeated: bool,
    pub unique: bool,
    pub r#enum: Option<Vec<Value>>,
    pub pattern: String,
    pub format: String,
    pub default: Option<Value>,
    pub reference_types: Option<Vec<String>>,
    pub description: String,
    pub properties: IndexMap<String, Field>,
    pub property_order: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct Include {
    pub path: String,
    /// A JSON Path (RFC 9535) picking the records out of each file, or empty for one record a file.
    pub selector: String,
    /// `selector` parsed, `None` when it is empty; not shown.
    #[serde(skip)]
    pub query: Option<JsonPath>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct Write {
    pub format: String,
    pub template: String,
}

/// The field types a definition may use.
pub const FIELD_TYPES: [&str; 7] = ["string", "integer", "number", "boolean", "object", "reference", "any"];

/// The record file formats `Write.Format` may name.
pub const WRITE_FORMATS: [&str; 2] = ["yaml", "json"];
