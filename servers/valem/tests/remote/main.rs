//! Remote mode, `valem mcp --url`, against a `valem serve` each test starts on a free loopback
//! port: the same surface as the embedded server (tools, resources, structured errors, the
//! recorded sessions), failures naming the URL when the server is down or silent, subscriptions
//! following the server's changes, and the API key guarding every route without ever showing.

#[path = "../support/mcp_client.rs"]
mod mcp_client;
#[path = "../support/scratch.rs"]
mod scratch;
#[path = "../support/served.rs"]
mod served;

mod api_key;
mod golden;
mod surface;

use std::path::Path;

/// The binary under test.
fn valem() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_valem"))
}
