//! The ModelSpec as written: its sections read from JSON, each problem reported where it is.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::findings::Findings;

/// A model's definition. Unknown top-level keys (`_name`, `_description`) are ignored.
#[derive(Debug, Clone)]
pub struct ModelSpec {
    pub id: String,
    pub version: String,
    pub schema: Value,
    pub constants: Value,
    /// The library's layers, JSONata text each.
    pub library: Vec<String>,
    pub default_values: Vec<DefaultValue>,
    pub derivations: Vec<Derivation>,
    pub meta_derivations: Vec<MetaDerivation>,
    pub constraints: Vec<Constraint>,
    pub effects: Vec<Effect>,
    pub tests: Vec<TestCase>,
    pub view_definition: Option<Value>,
    /// The spec exactly as given, for `get_spec`.
    pub raw: Value,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DefaultValue {
    pub path: String,
    pub expr: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Evaluation {
    #[default]
    Eager,
    Lazy,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Derivation {
    pub path: String,
    pub expr: String,
    #[serde(default)]
    pub evaluation: Evaluation,
}

/// The schema keywords a meta derivation may compute.
pub const META_PROPERTIES: &[&str] = &[
    "required",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "enum",
    "readOnly",
    "relevant",
    "multipleOf",
];

#[derive(Debug, Clone, Deserialize)]
pub struct MetaDerivation {
    pub path: String,
    pub property: String,
    pub expr: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    #[default]
    Rollback,
    Flag,
}

/// Where a constraint applies: the document, one field, or several.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ConstraintPath {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Clone, Deserialize)]
pub struct Constraint {
    pub id: String,
    #[serde(default)]
    pub path: Option<ConstraintPath>,
    pub expr: String,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub policy: Policy,
}

impl Constraint {
    pub fn paths(&self) -> Vec<&str> {
        match &self.path {
            None => Vec::new(),
            Some(ConstraintPath::One(p)) => vec![p.as_str()],
            Some(ConstraintPath::Many(ps)) => ps.iter().map(String::as_str).collect(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Effect {
    pub id: String,
    pub executor: String,
    pub trigger: String,
    #[serde(default)]
    pub dedupe_key: Option<String>,
    #[serde(default)]
    pub status_path: Option<String>,
    /// Everything else (`emit`, `payload`, `request`, ...), carried into the effect request.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct TestCase {
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub given: Map<String, Value>,
    #[serde(default)]
    pub expect: Map<String, Value>,
}

const DEFAULT_VERSION: &str = "1.0.0";

impl ModelSpec {
    /// Reads a spec; every section that cannot be read is an error finding at its location.
    pub fn parse(raw: &Value) -> Result<ModelSpec, Findings> {
        let mut f = Findings::default();
        let Some(obj) = raw.as_object() else {
            f.error("$", "a ModelSpec is a JSON object");
            return Err(f);
        };
        let id = match obj.get("id") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                f.error("id", "`id` must be a string");
                String::new()
            }
            None => {
                f.error("id", "`id` is required");
                String::new()
            }
        };
        let version = match obj.get("version") {
            None => DEFAULT_VERSION.to_owned(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                f.error("version", "`version` must be a string such as \"1.0.0\"");
                String::new()
            }
        };
        let schema = match obj.get("schema") {
            Some(s @ Value::Object(_)) => s.clone(),
            Some(_) => {
                f.error("schema", "`schema` must be a JSON Schema object");
                Value::Null
            }
            None => {
                f.error("schema", "`schema` is required (use {} for a document of any shape)");
                Value::Null
            }
        };
        for key in ["actions", "initialState"] {
            match obj.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::Array(a)) if a.is_empty() && key == "actions" => {}
                Some(_) => {
                    f.error(key, format!("`{key}` is not supported; use derivations, defaultValues and effects"))
                }
            }
        }
        let library = library(obj.get("library"), &mut f);
        let spec = ModelSpec {
            id,
            version,
            schema,
            constants: obj.get("constants").cloned().unwrap_or(Value::Null),
            library,
            default_values: list(obj, "defaultValues", &mut f),
            derivations: list(obj, "derivations", &mut f),
            meta_derivations: list(obj, "metaDerivations", &mut f),
            constraints: list(obj, "constraints", &mut f),
            effects: list(obj, "effects", &mut f),
            tests: list(obj, "tests", &mut f),
            view_definition: obj.get("viewDefinition").filter(|v| !v.is_null()).cloned(),
            raw: raw.clone(),
        };
        if f.has_errors() { Err(f) } else { Ok(spec) }
    }
}

/// A section that is an array of items, each read on its own so each error has its index.
fn list<T: DeserializeOwned>(obj: &Map<String, Value>, key: &str, f: &mut Findings) -> Vec<T> {
    match obj.get(key) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| {
                serde_json::from_value(item.clone()).map_err(|e| f.error(format!("{key}[{i}]"), e.to_string())).ok()
            })
            .collect(),
        Some(_) => {
            f.error(key, format!("`{key}` must be an array"));
            Vec::new()
        }
    }
}

/// The library in any of its forms: text, `{define}`, `{layers: [...]}`, or an array of these.
pub fn library(value: Option<&Value>, f: &mut Findings) -> Vec<String> {
    fn layers(v: &Value, at: &str, out: &mut Vec<String>, f: &mut Findings) {
        match v {
            Value::Null => {}
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    layers(item, &format!("{at}[{i}]"), out, f);
                }
            }
            Value::Object(m) if m.contains_key("layers") => layers(&m["layers"], &format!("{at}.layers"), out, f),
            Value::Object(m) => match m.get("define") {
                Some(Value::String(s)) => out.push(s.clone()),
                _ => f.error(at, "a library layer is JSONata text or {\"define\": text}"),
            },
            _ => f.error(at, "a library is JSONata text, {\"define\": text} or {\"layers\": [...]}"),
        }
    }
    let mut out = Vec::new();
    if let Some(v) = value {
        layers(v, "library", &mut out, f);
    }
    out
}
