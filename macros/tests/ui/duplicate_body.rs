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

/// Patches a model.
#[tool(rest = "PATCH /models/{id}", body = "patch", body = "id")]
pub async fn patch_model(cx: &Cx<Models>, args: Args) -> Result<Value, tooltable::Error> {
    let _ = (cx, args);
    Ok(Value::Null)
}

fn main() {}
