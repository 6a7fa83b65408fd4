use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tooltable::Cx;
use tooltable_macros::tool;

pub struct Models;

#[derive(Deserialize, JsonSchema)]
pub struct Args {
    pub id: String,
}

/// Creates a model.
#[tool(location = "/models/{id}")]
pub async fn create_model(cx: &Cx<Models>, args: Args) -> Result<Value, tooltable::Error> {
    let _ = (cx, args);
    Ok(Value::Null)
}

/// Copies a model.
#[tool(rest = "POST /copies", location = "copies/{id}x")]
pub async fn copy_model(cx: &Cx<Models>, args: Args) -> Result<Value, tooltable::Error> {
    let _ = (cx, args);
    Ok(Value::Null)
}

fn main() {}
