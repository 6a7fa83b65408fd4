use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tooltable_macros::tool;

pub struct Models;

#[derive(Deserialize, JsonSchema)]
pub struct Args {
    pub id: String,
    pub patch: Value,
}

pub struct Api;

impl Api {
    /// Reads a model.
    #[tool]
    pub async fn get_model(&self, args: Args) -> Result<Value, tooltable::Error> {
        let _ = args;
        Ok(Value::Null)
    }
}

fn main() {}
