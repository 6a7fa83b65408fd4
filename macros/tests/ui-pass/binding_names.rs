//! Tools with short names: each tool is a const, and a const in scope turns a pattern
//! such as `Ok(a)` in the expansion into a comparison, so the expansion binds only `__` names.

use schemars::JsonSchema;
use serde::Deserialize;
use tooltable::{Cx, Error};
use tooltable_macros::tool;

#[derive(Deserialize, JsonSchema)]
pub struct Args {
    pub id: String,
}

/// Named `a`.
#[tool]
async fn a(_cx: &Cx<()>, args: Args) -> Result<String, Error> {
    Ok(args.id)
}

/// Named `o`.
#[tool]
async fn o() -> Result<(), Error> {
    Ok(())
}

fn main() {
    let _ = tooltable::table![a, o];
}
