use serde_json::{Value, json};
use tooltable::tool::Tool;
use tooltable::Error;
use tooltable_macros::tool;

fn spec_schema() -> Value {
    json!({ "type": "object", "properties": { "spec": { "type": "object", "required": ["id"] } }, "required": ["spec"] })
}

/// Takes a spec whose schema is built at run time.
#[tool(input_schema = spec_schema())]
async fn create(args: Value) -> Result<Value, Error> {
    Ok(args)
}

fn main() {
    let meta = Tool::<()>::meta(&create);
    assert_eq!((meta.input_schema)(), spec_schema());
}
