use schemars::JsonSchema;
use serde::Deserialize;
use tooltable::tool::Tool;
use tooltable_macros::tool;

#[derive(Deserialize, JsonSchema)]
pub struct EchoArgs {
    pub text: String,
}

/// Echoes its argument. Without a context, it fits a table of any state.
#[tool(read_only)]
async fn echo(args: EchoArgs) -> Result<String, tooltable::Error> {
    Ok(args.text)
}

fn main() {
    assert_eq!(Tool::<()>::meta(&echo).name, "echo");
    assert_eq!(Tool::<String>::meta(&echo).name, "echo");
}
