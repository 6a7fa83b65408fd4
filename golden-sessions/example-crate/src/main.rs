//! The greeter: a small tooltable server in a crate of its own, whose golden tests are set up as
//! docs/guide/recording-sessions.md says a crate outside the repository sets them up.
//! `greeter mcp` serves it over stdio, `greeter serve` over HTTP and REST.
//!
//! `GREET_DESCRIPTION`, when set, is the `greet` tool's description in place of its doc comment:
//! the greeter after a change, which tests/review.rs replays its sessions against.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooltable::tool::{DynamicTool, TableError, Tool};
use tooltable::{Error, Server, ServerBuilder, table, tool};

/// The environment variable whose value, when set, is `greet`'s description.
const GREET_DESCRIPTION: &str = "GREET_DESCRIPTION";

/// Whom to greet.
#[derive(Deserialize, JsonSchema)]
pub struct Greet {
    /// The name to greet.
    pub name: String,
}

/// A greeting.
#[derive(Serialize, JsonSchema)]
pub struct Greeting {
    pub text: String,
}

/// Greets someone by name.
#[tool(title = "Greet", read_only, idempotent, rest = "GET /greet")]
pub async fn greet(args: Greet) -> Result<Greeting, Error> {
    Ok(Greeting { text: format!("Hello, {}!", args.name) })
}

/// Two numbers to add.
#[derive(Deserialize, JsonSchema)]
pub struct Add {
    pub a: i64,
    pub b: i64,
}

/// A sum.
#[derive(Serialize, JsonSchema)]
pub struct Sum {
    pub sum: i64,
}

/// Adds two integers.
#[tool(title = "Add", read_only, idempotent, rest = "GET /add")]
pub async fn add(args: Add) -> Result<Sum, Error> {
    args.a.checked_add(args.b).map(|sum| Sum { sum }).ok_or_else(|| Error::invalid_input("the sum overflows"))
}

fn builder() -> ServerBuilder<()> {
    Server::builder(())
        .info(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions("Greets people and adds numbers.")
}

fn server() -> Result<Server<()>, TableError> {
    let Ok(description) = std::env::var(GREET_DESCRIPTION) else {
        return builder().tools(table![greet, add]).build();
    };
    // A table's descriptions are fixed when it is compiled: the same tools, in the same order,
    // are served as tools added at run time, `greet` with the description given.
    let descriptors = builder().tools(table![greet, add]).build()?.table().descriptors();
    let server = builder().build()?;
    for (tool, mut descriptor) in table![greet, add].into_iter().zip(descriptors) {
        if descriptor.name == "greet" {
            descriptor.description.clone_from(&description);
        }
        let tool: Arc<dyn Tool<()>> = Arc::from(tool);
        server.add_tool(DynamicTool::new(descriptor, move |cx, args| tool.call(cx, args)))?;
    }
    Ok(server)
}

fn main() -> std::process::ExitCode {
    tooltable_transports::cli::main(tooltable_transports::package!(), server)
}
