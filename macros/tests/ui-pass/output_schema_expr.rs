use serde_json::Value;
use tooltable::tool::Tool;
use tooltable::Cx;
use tooltable_macros::tool;

pub struct Models;

/// Returns untyped JSON and writes its schema by hand.
#[tool(output_schema = serde_json::json!({
    "type": "object",
    "properties": { "models": { "type": "integer" } },
}))]
pub async fn summary(_cx: &Cx<Models>) -> Result<Value, tooltable::Error> {
    Ok(serde_json::json!({ "models": 3 }))
}

fn main() {
    let schema = (summary.meta().output_schema)().expect("the written schema");
    assert_eq!(schema["properties"]["models"]["type"], "integer");
}
