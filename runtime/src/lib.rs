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

mod api;
mod engine;

#[doc(hidden)]
pub use api::expansion as __private;
pub use api::{numbers, schema};

pub use api::content::{Content, ContentBlock, ResourceContents};
pub use api::context::{ClientRequestError, Cx, Era, InputRequest, Principal, Transport};
pub use api::descriptor::{Annotations, DynamicHandler, DynamicTool, RestRoute, TaskSupport, ToolDescriptor};
pub use api::logging::LogLevel;
pub use api::operation::Operation;
pub use api::outcome::{
    CallOutput, CallResult, Error, ErrorKind, ToolError, ToolFailure, UrlElicitation, UrlElicitationRequired,
};
// Named in the compiler's messages about a wrong return type; never written by hand.
#[doc(hidden)]
pub use api::outcome::{IntoCallOutput, IntoCallResult};
pub use api::prompts::{CompletionRequest, Prompt, PromptArgs, PromptArgument, PromptMessage, PromptResult, Role};
pub use api::resources::{Resource, ResourceRequest, ResourceTemplate};
pub use api::table_error::TableError;
pub use api::tasks::{MemoryTaskStore, TaskEnd, TaskRecord, TaskStatus, TaskStore, TaskStoreError};
pub use engine::server::{Config, ReplaceError, Server, ServerBuilder, ServerInfo, SubscriptionObserver, WeakServer};
pub use engine::stateless::request_state::{StateError, StateKey};
pub use engine::stateless::{CacheHint, CacheScope};
pub use tooltable_macros::operation;

/// What a transport needs and a server author does not: the session that takes messages in,
/// each with its [`RequestContext`](transport::RequestContext), and gives them out through an
/// [`Outbox`](transport::Outbox) as [`Outgoing`](transport::Outgoing) messages and signals; the
/// JSON-RPC codec; the protocol versions; and the table of tools as the session sees it.
pub mod transport {
    pub use crate::api::context::RequestContext;
    pub use crate::api::operation::BoxFuture;
    pub use crate::engine::era::SUPPORTED_VERSIONS;
    pub use crate::engine::handshake::{HANDSHAKE_VERSIONS, LATEST_VERSION};
    pub use crate::engine::outbox::{Destination, Outbox, Outgoing};
    pub use crate::engine::session::Session;
    pub use crate::engine::stateless::{PROTOCOL_VERSION as META_PROTOCOL_VERSION, STATELESS_VERSIONS};
    pub use crate::engine::table::{Entry, Table};

    /// JSON-RPC 2.0 framing: decoding one message (or a batch) and encoding responses, errors,
    /// notifications and requests.
    pub mod jsonrpc {
        pub use crate::engine::jsonrpc::*;
    }
}
