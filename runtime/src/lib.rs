//! tooltable: write one annotated async fn and get an MCP tool (name, title, description,
//! inputSchema, outputSchema, annotations) and a REST route from it.
//!
//! The doc comment is the tool's description; the argument type (`Deserialize + JsonSchema`)
//! gives the inputSchema; the success type (`Serialize + JsonSchema`) the outputSchema; the error
//! type any `Serialize` type implementing [`ToolError`], whose [`ErrorKind`] picks the REST
//! status. [`table!`] lists the operations, [`Server::builder`] makes the server, and
//! [`Server::call`] runs a tool in process (tests, scripts); the transports and the standard
//! command line are in the `tooltable-transports` crate.
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//! use serde_json::json;
//! use tooltable::{Error, ErrorKind, Server, operation, table};
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct AddNumbers {
//!     /// The first addend.
//!     a: f64,
//!     /// The second addend.
//!     b: f64,
//! }
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Sum {
//!     sum: f64,
//! }
//!
//! /// Adds two numbers.
//! #[operation(title = "Add numbers", read_only, idempotent, rest = "GET /add")]
//! async fn add_numbers(args: AddNumbers) -> Result<Sum, Error> {
//!     Ok(Sum { sum: args.a + args.b })
//! }
//!
//! let server = Server::builder(()).info("adder", "1.0.0").operations(table![add_numbers]).build()?;
//! let runtime = tokio::runtime::Builder::new_current_thread().build()?;
//!
//! let sum = runtime.block_on(server.call("add_numbers", json!({ "a": 2, "b": 40 })));
//! assert_eq!(sum, Ok(json!({ "sum": 42 })), "an integral number is written as an integer");
//!
//! let missing = runtime.block_on(server.call("add_numbers", json!({ "a": 2 }))).unwrap_err();
//! assert_eq!(missing.kind, ErrorKind::InvalidInput, "arguments are validated against the inputSchema");
//! assert_eq!(missing.body["error"], "Invalid arguments");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Compatibility
//!
//! Rust 1.95 or newer. No OS calls: it builds for Linux, macOS and Windows (the transports of
//! `tooltable-transports` are Unix only today).

extern crate self as tooltable;

mod content;
mod context;
mod descriptor;
#[doc(hidden)]
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
mod tasks;
mod validate;
mod wire_names;

#[doc(hidden)]
pub mod __private;

pub use content::{Content, ContentBlock, ResourceContents};
pub use context::{ClientRequestError, Cx, InputRequest};
pub use descriptor::ToolDescriptor;
pub use logging::LogLevel;
pub use operation::{Annotations, Operation, RestRoute};
pub use outcome::{
    CallOutput, CallResult, Error, ErrorKind, ToolError, ToolFailure, UrlElicitation, UrlElicitationRequired,
};
// Named in the compiler's messages about a wrong return type; never written by hand.
#[doc(hidden)]
pub use outcome::{IntoCallOutput, IntoCallResult};
pub use prompts::{CompletionRequest, Prompt, PromptArgs, PromptArgument, PromptMessage, PromptResult, Role};
pub use request_state::{StateError, StateKey};
pub use resources::{Resource, ResourceRequest, ResourceTemplate};
pub use server::{Config, ReplaceError, Server, ServerBuilder, ServerInfo, SubscriptionObserver, WeakServer};
pub use session::{CacheHint, CacheScope};
pub use table::{DynamicHandler, DynamicTool, TableError};
pub use tasks::{MemoryTaskStore, TaskEnd, TaskRecord, TaskStatus, TaskStore, TaskStoreError, TaskSupport};
pub use tooltable_macros::operation;

/// What a transport needs and a server author does not: the session that takes messages in and
/// gives them out through an [`Outbox`](transport::Outbox), the JSON-RPC codec, the protocol
/// versions, and the table of tools as the session sees it.
pub mod transport {
    pub use crate::jsonrpc;
    pub use crate::operation::BoxFuture;
    pub use crate::resources::match_template;
    pub use crate::session::{
        HANDSHAKE_VERSIONS, LATEST_VERSION, META_PROTOCOL_VERSION, Outbox, Outgoing, Route, STATELESS_VERSIONS,
        SUPPORTED_VERSIONS, Session,
    };
    pub use crate::table::{Entry, Table};
}
