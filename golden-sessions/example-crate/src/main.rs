//! The greeter: a small tooltable server in a crate of its own, whose golden tests are set up as
//! docs/guide/recording-sessions.md says a crate outside the repository sets them up.
//! `greeter mcp` serves it over stdio, `greeter serve` over HTTP and REST.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooltable::tool::TableError;
use tooltable::{Error, Server, table, tool};

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

fn server() -> Result<Server<()>, TableError> {
    Server::builder(())
        .info(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions("Greets people and adds numbers.")
        .tools(table![greet, add])
        .build()
}

fn main() -> std::process::ExitCode {
    tooltable_transports::cli::main(tooltable_transports::package!(), server)
}
