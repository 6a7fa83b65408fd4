//! The definition file `entities/<Name>.yaml` as written: the same key names as the normalized
//! schema `entity_show` prints, every key optional, unknown keys rejected (a typo is an error,
//! not a silently ignored setting).

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct Definition {
    /// When given, it must equal the file name's stem.
    pub name: Option<String>,
    #[serde(default)]
    pub description: String,
    /// The parent entity, or empty for none.
    #[serde(default)]
    pub extends: String,
    pub identifier: Option<IdentifierSpec>,
    /// Field name → field, in the order written (that order is `FieldOrder`).
    #[serde(default)]
    pub fields: IndexMap<String, FieldSpec>,
    #[serde(default)]
    pub include: Vec<IncludeSpec>,
    pub inline_data: Option<Vec<Value>>,
    pub write: Option<WriteSpec>,
    /// A workspace-relative JSON Schema file every record must also satisfy.
    #[serde(default, rename = "JSONSchema")]
    pub json_schema: String,
}

/// `Identifier` as written; a key left out takes its value from the default, which is also the
/// identifier of an entity (and of all its ancestors) that writes none.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "PascalCase")]
pub struct IdentifierSpec {
    pub field: String,
    pub generated: bool,
    pub pattern: String,
}

impl Default for IdentifierSpec {
    fn default() -> Self {
        IdentifierSpec { field: "id".to_owned(), generated: false, pattern: String::new() }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct FieldSpec {
    #[serde(rename = "Type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub repeated: bool,
    #[serde(default)]
    pub unique: bool,
    pub r#enum: Option<Vec<Value>>,
    #[serde(default)]
    pub pattern: String,
    #[serde(default)]
    pub format: String,
    pub default: Option<Value>,
    pub reference_types: Option<Vec<String>>,
    #[serde(default)]
    pub description: String,
    /// Nested fields of an `object` field, in the order written.
    #[serde(default)]
    pub properties: IndexMap<String, FieldSpec>,
}

/// An include: a path glob, or the glob with a selector picking many records out of each file.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum IncludeSpec {
    Glob(String),
    Selected(SelectedInclude),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct SelectedInclude {
    pub path: String,
    #[serde(default)]
    pub selector: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct WriteSpec {
    pub format: Option<String>,
    pub template: Option<String>,
}

impl IncludeSpec {
    pub fn path_and_selector(&self) -> (&str, &str) {
        match self {
            IncludeSpec::Glob(path) => (path, ""),
            IncludeSpec::Selected(s) => (&s.path, &s.selector),
        }
    }
}
