use serde::Deserialize;
use tooltable::Cx;
use tooltable_macros::tool;

pub struct Models;

#[derive(Deserialize)]
pub struct Args {
    pub id: String,
}

/// Reads a model.
#[tool]
pub async fn read(cx: &Cx<Models>, args: Args) -> Result<String, tooltable::Error> {
    let _ = cx;
    Ok(args.id)
}

fn main() {}
