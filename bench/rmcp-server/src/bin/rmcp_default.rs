//! `rmcp-default`: the `add_numbers` tool served with rmcp the way its documentation shows.
//!
//! * `#[tokio::main]` (the multi-threaded runtime),
//! * `rmcp::transport::stdio()` — Tokio's `Stdin`/`Stdout`, whose every read and write is
//!   handed to Tokio's blocking thread pool,
//! * `#[tool_router]` + a bare `#[tool_handler]`, whose generated `call_tool` / `list_tools`
//!   call `Self::tool_router()` — so the router (tool metadata, input/output schemas) is
//!   rebuilt on every call, as the macro docs say ("in most cases you do not need to store the
//!   router in a field").
//!
//! Same tool shape as tooltable's conformance `add_numbers`: input `{a: number, b: number}`,
//! result `{"sum": a+b}` as structuredContent plus its JSON text (rmcp's `Json<T>`).

use rmcp::{
    Json, ServerHandler, ServiceExt,
    handler::server::wrapper::Parameters,
    tool, tool_handler, tool_router,
    transport::stdio,
};

use rmcp_server::{AddNumbers, Sum};

#[derive(Clone, Default)]
pub struct Bench;

#[tool_router]
impl Bench {
    /// Adds two numbers; its result is an object, so the tool declares an outputSchema.
    #[tool(annotations(title = "Add numbers", read_only_hint = true, idempotent_hint = true))]
    async fn add_numbers(&self, Parameters(args): Parameters<AddNumbers>) -> Result<Json<Sum>, String> {
        Ok(Json(Sum { sum: args.a + args.b }))
    }
}

#[tool_handler(name = "rmcp-default", version = "0.1.0")]
impl ServerHandler for Bench {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Bench.serve(stdio()).await?;
    service.waiting().await?;
    Ok(())
}
