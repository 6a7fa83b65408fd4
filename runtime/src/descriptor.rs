//! A tool's descriptor: what `tools/list` shows of it, and the REST route the HTTP transport serves.

use serde_json::{Map, Value, json};

use crate::operation::{Annotations, OperationMeta, RestRoute};

/// Everything the runtime knows about one tool, whether it came from `#[operation]` or was added
/// at run time.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDescriptor {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    pub annotations: Annotations,
    pub rest: Option<RestRoute>,
    /// When false (the default), an argument the inputSchema does not name is rejected by name.
    pub allow_unknown_args: bool,
}

impl ToolDescriptor {
    /// A descriptor with an input schema and nothing else set.
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> Self {
        ToolDescriptor {
            name: name.into(),
            title: None,
            description: description.into(),
            input_schema,
            output_schema: None,
            annotations: Annotations::default(),
            rest: None,
            allow_unknown_args: false,
        }
    }

    /// The MCP `Tool` object, keys in the order the specification lists them.
    pub fn to_mcp(&self) -> Value {
        let mut tool = Map::new();
        tool.insert("name".into(), json!(self.name));
        if let Some(title) = &self.title {
            tool.insert("title".into(), json!(title));
        }
        tool.insert("description".into(), json!(self.description));
        tool.insert("inputSchema".into(), self.input_schema.clone());
        if let Some(schema) = &self.output_schema {
            tool.insert("outputSchema".into(), schema.clone());
        }
        let a = &self.annotations;
        tool.insert(
            "annotations".into(),
            json!({
                "readOnlyHint": a.read_only,
                "destructiveHint": a.destructive,
                "idempotentHint": a.idempotent,
                "openWorldHint": a.open_world,
            }),
        );
        Value::Object(tool)
    }
}

impl From<OperationMeta> for ToolDescriptor {
    fn from(meta: OperationMeta) -> Self {
        ToolDescriptor {
            name: meta.name.to_owned(),
            title: meta.title.map(str::to_owned),
            description: meta.description.to_owned(),
            input_schema: (meta.input_schema)(),
            output_schema: (meta.output_schema)(),
            annotations: meta.annotations,
            rest: meta.rest.map(|r| RestRoute {
                method: r.method.to_owned(),
                path: r.path.to_owned(),
                body: r.body.map(str::to_owned),
                status: r.status,
            }),
            allow_unknown_args: meta.allow_unknown_args,
        }
    }
}
