use schemars::JsonSchema;
use serde::Deserialize;
use tooltable::Operation;
use tooltable_macros::operation;

#[derive(Deserialize, JsonSchema)]
pub struct EchoArgs {
    pub text: String,
}

/// Echoes its argument. Without a context, it fits a table of any state.
#[operation(read_only)]
async fn echo(args: EchoArgs) -> Result<String, tooltable::Error> {
    Ok(args.text)
}

fn main() {
    assert_eq!(Operation::<()>::meta(&echo).name, "echo");
    assert_eq!(Operation::<String>::meta(&echo).name, "echo");
}
