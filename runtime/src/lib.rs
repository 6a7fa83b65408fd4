//! tooltable: write one annotated async fn and get an MCP tool (name, title, description,
//! inputSchema, outputSchema, annotations) and a REST route from it.
//!
//! ```ignore
//! /// Read a model's merged state.
//! #[operation(rest = "GET /models/{id}/state", read_only, idempotent)]
//! async fn get_state(cx: &Cx<Models>, args: GetStateArgs) -> Result<Value, ModelError> { .. }
//!
//! let server = Server::builder(Models::default()).operations(table![get_state]).build()?;
//! ```

extern crate self as tooltable;

mod content;
mod context;
mod descriptor;
pub mod jsonrpc;
mod logging;
pub mod numbers;
mod operation;
mod outcome;
mod prompts;
mod request_state;
mod resources;
pub mod schema;
mod server;
mod session;
mod table;
mod validate;
mod wire_names;

#[doc(hidden)]
pub mod __private;

pub use content::{Content, ContentBlock, ResourceContents};
pub use context::{ClientRequestError, Cx, InputRequest};
pub use descriptor::ToolDescriptor;
pub use logging::LogLevel;
pub use operation::{Annotations, BoxFuture, Operation, RestRoute};
pub use outcome::{
    Error, ErrorKind, Failure, IntoOutcome, Outcome, Output, ToolError, ToolOutput, UrlElicitation,
    UrlElicitationRequired,
};
pub use prompts::{CompletionRequest, Prompt, PromptArgs, PromptArgument, PromptMessage, PromptResult, Role};
pub use resources::{Resource, ResourceRequest, ResourceTemplate, match_template};
pub use request_state::{StateError, StateKey};
pub use server::{Config, Server, ServerBuilder, ServerInfo};
pub use session::{
    CacheHint, CacheScope, HANDSHAKE_VERSIONS, LATEST_VERSION, Outbox, Outgoing, Route, STATELESS_VERSIONS,
    SUPPORTED_VERSIONS, Session,
};
pub use table::{DynamicTool, Entry, Table, TableError};
pub use tooltable_macros::operation;
