use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use tooltable::tool::Tool;
use tooltable::Cx;
use tooltable_macros::tool;

pub struct Models;

#[derive(Serialize, JsonSchema)]
pub struct Summary {
    pub models: u32,
}

/// Returns untyped JSON but declares its shape.
#[tool(output = Summary)]
pub async fn summary(_cx: &Cx<Models>) -> Result<Value, tooltable::Error> {
    Ok(serde_json::json!({ "models": 3 }))
}

fn main() {
    let schema = (summary.meta().output_schema)().expect("an object schema");
    assert!(schema["properties"]["models"].is_object());
}
