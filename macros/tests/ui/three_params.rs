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

/// Reads a model.
#[tool]
pub async fn get_model(cx: &Cx<Models>, args: Args, verbose: bool) -> Result<Value, tooltable::Error> {
    let _ = (cx, args, verbose);
    Ok(Value::Null)
}

fn main() {}
