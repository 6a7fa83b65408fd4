use serde_json::{Value, json};
use tooltable::{Error, Operation};
use tooltable_macros::operation;

fn spec_schema() -> Value {
    json!({ "type": "object", "properties": { "spec": { "type": "object", "required": ["id"] } }, "required": ["spec"] })
}

/// Takes a spec whose schema is built at run time.
#[operation(input_schema = spec_schema())]
async fn create(args: Value) -> Result<Value, Error> {
    Ok(args)
}

fn main() {
    let meta = Operation::<()>::meta(&create);
    assert_eq!((meta.input_schema)(), spec_schema());
}
