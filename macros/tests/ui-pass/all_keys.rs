use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tooltable::tool::Tool;
use tooltable::Cx;
use tooltable_macros::tool;

pub struct Models;

#[derive(Deserialize, JsonSchema)]
pub struct ReplaceArgs {
    pub id: String,
    pub model: Value,
}

#[derive(Serialize, JsonSchema)]
pub struct Replaced {
    pub id: String,
}

/// Replaces a model.
///
/// Every key of `#[tool]` at once, except `output_schema` (which excludes `output`).
#[tool(
    name = "models.replace",
    title = "Replace model",
    read_only = false,
    destructive,
    idempotent = true,
    open_world = false,
    rest = "PUT /models/{id}",
    body = "model",
    status = 201,
    location = "/models/{id}",
    output = Replaced,
    allow_unknown_args,
)]
pub async fn replace_model(cx: &Cx<Models>, args: ReplaceArgs) -> Result<Replaced, tooltable::Error> {
    let _ = (cx, args.model);
    Ok(Replaced { id: args.id })
}

fn main() {
    let meta = replace_model.meta();
    assert_eq!(meta.name, "models.replace");
    assert_eq!(meta.title, Some("Replace model"));
    assert!(meta.allow_unknown_args);
    let rest = meta.rest.unwrap();
    assert_eq!((rest.method, rest.path, rest.body, rest.status), ("PUT", "/models/{id}", Some("model"), 201));
    assert_eq!(rest.location, Some("/models/{id}"));
}
