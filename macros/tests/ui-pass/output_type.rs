use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use tooltable::{Cx, Operation};
use tooltable_macros::operation;

pub struct Models;

#[derive(Serialize, JsonSchema)]
pub struct Summary {
    pub models: u32,
}

/// Returns untyped JSON but declares its shape.
#[operation(output = Summary)]
pub async fn summary(_cx: &Cx<Models>) -> Result<Value, tooltable::Error> {
    Ok(serde_json::json!({ "models": 3 }))
}

fn main() {
    let schema = (summary.meta().output_schema)().expect("an object schema");
    assert!(schema["properties"]["models"].is_object());
}
