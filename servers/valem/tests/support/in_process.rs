//! One tool called in process, as the tests call them: its JSON result, or its failure's body.

use serde_json::Value;
use tooltable::Server;
use valem::tools::registry::Models;

pub fn call(server: &Server<Models>, tool: &str, args: Value) -> Result<Value, Value> {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(server.call(tool, args)).map_err(|failure| failure.body)
}
