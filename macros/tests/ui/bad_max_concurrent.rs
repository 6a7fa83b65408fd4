use serde_json::Value;
use tooltable_macros::tool;

/// Never runs.
#[tool(max_concurrent = 0)]
pub async fn never() -> Result<Value, tooltable::Error> {
    Ok(Value::Null)
}

/// Runs more than a u32 counts.
#[tool(max_concurrent = 5000000000)]
pub async fn countless() -> Result<Value, tooltable::Error> {
    Ok(Value::Null)
}

fn main() {}
