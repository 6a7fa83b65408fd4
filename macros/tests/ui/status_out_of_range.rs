use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tooltable::Cx;
use tooltable_macros::tool;

pub struct Models;

#[derive(Deserialize, JsonSchema)]
pub struct Args {
    pub id: String,
    pub patch: Value,
}

/// Creates a model.
#[tool(rest = "POST /models", status = 2010)]
pub async fn create_model(cx: &Cx<Models>, args: Args) -> Result<Value, tooltable::Error> {
    let _ = (cx, args);
    Ok(Value::Null)
}

fn main() {}
