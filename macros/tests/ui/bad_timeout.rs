use serde_json::Value;
use tooltable_macros::tool;

/// Never answers in time.
#[tool(timeout_ms = 0)]
pub async fn instant() -> Result<Value, tooltable::Error> {
    Ok(Value::Null)
}

/// A time limit in words.
#[tool(timeout_ms = "5s")]
pub async fn worded() -> Result<Value, tooltable::Error> {
    Ok(Value::Null)
}

fn main() {}
