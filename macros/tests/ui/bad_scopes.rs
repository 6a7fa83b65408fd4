use serde_json::Value;
use tooltable_macros::tool;

/// One scope, not a list of them.
#[tool(scopes = "notes:write")]
pub async fn bare() -> Result<Value, tooltable::Error> {
    Ok(Value::Null)
}

/// An empty scope, one with a space, one that is no string.
#[tool(scopes = ["", "notes write", 3])]
pub async fn malformed() -> Result<Value, tooltable::Error> {
    Ok(Value::Null)
}

fn main() {}
