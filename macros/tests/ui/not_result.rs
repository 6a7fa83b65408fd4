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

/// Names a model.
#[tool]
pub async fn model_name(cx: &Cx<Models>, args: Args) -> String {
    let _ = cx;
    args.id
}

fn main() {}
