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

/// Forgets a model.
#[tool]
pub async fn forget_model(cx: &Cx<Models>, args: Args) {
    let _ = (cx, args);
}

fn main() {}
