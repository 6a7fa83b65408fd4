use schemars::JsonSchema;
use serde::Deserialize;
use tooltable::tool::Tool;
use tooltable::Cx;
use tooltable_macros::tool;

pub struct Models;

#[derive(Deserialize, JsonSchema)]
pub struct SlowArgs {
    pub id: String,
}

/// Takes the context by value, e.g. to move it into a spawned task.
#[tool]
pub async fn slow(cx: Cx<Models>, SlowArgs { id }: SlowArgs) -> Result<String, tooltable::Error> {
    let _cx: Cx<Models> = cx;
    Ok(id)
}

fn main() {
    assert_eq!(slow.meta().name, "slow");
}
