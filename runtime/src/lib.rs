//! tooltable: write one annotated async fn and get an MCP tool (name, title, description,
//! inputSchema, outputSchema, annotations) and a REST route from it.
//!
//! The doc comment is the tool's description; the argument type (`Deserialize + JsonSchema`)
//! gives the inputSchema; the success type (`Serialize + JsonSchema`) the outputSchema; the error
//! type [`Error`] or any `Serialize` type implementing [`ErrorBody`], whose [`ErrorKind`] picks the
//! REST status. [`table!`] lists the tools, [`Server::builder`] makes the server, and
//! [`Server::call`] runs a tool in process (tests, scripts); the transports and the standard
//! command line are in the `tooltable-transports` crate.
//!
//! The root holds what every server writes with; the rest is in modules by subject: [`tool`](mod@tool)
//! (descriptors, dynamic tools, outputs), [`context`] (what a call's [`Cx`] tells and asks),
//! [`layer`] (code around every call: the call log, refusals, other outcomes), [`content`],
//! [`resources`], [`prompts`], [`tasks`], [`schema`], [`server`] (settings and handles), and
//! [`transport`] (what a transport needs and an author does not).
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//! use serde_json::json;
//! use tooltable::{Error, ErrorKind, Server, table, tool};
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
//! #[tool(title = "Add numbers", read_only, idempotent, rest = "GET /add")]
//! async fn add_numbers(args: AddNumbers) -> Result<Sum, Error> {
//!     Ok(Sum { sum: args.a + args.b })
//! }
//!
//! let server = Server::builder(()).info("adder", "1.0.0").tools(table![add_numbers]).build()?;
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
//! `tooltable-transports` build for Linux and macOS, not yet for Windows: they use Unix calls for
//! the standard streams, the open-file limit and signals, as the repository's README says under
//! "Compatibility").

#![deny(unreachable_pub)]
#![warn(missing_docs, missing_debug_implementations)]

extern crate self as tooltable;

mod api;
mod engine;

pub use api::context::{Cx, Principal};
pub use api::error::{Error, ErrorBody, ErrorKind};
#[doc(hidden)]
pub use api::expansion as __private;
pub use api::{content, context, layer, prompts, resources, schema, tasks, tool};
pub use engine::server::{Server, ServerBuilder};

/// Makes a documented `async fn` a tool: an MCP tool, and with `rest = "..."` a REST endpoint.
///
/// The function takes an optional context (`cx: &Cx<S>` or `cx: Cx<S>`, first) and optional
/// arguments (one `Deserialize + JsonSchema` type, the inputSchema), and returns `Result<T, E>`:
/// `T` is `Serialize + JsonSchema` (the outputSchema when it is an object) or
/// [`Content`](content::Content); `E` is [`Error`] or a type implementing [`ErrorBody`]. Its doc
/// comment is the tool's description. The attribute leaves the function callable as
/// `name::run(...)` (unit tests) and makes `name` a [`Tool`](tool::Tool) for [`table!`].
///
/// Every key is optional:
///
/// | key | meaning |
/// |---|---|
/// | `name = "..."` | the tool's name (default: the function's) |
/// | `title = "..."` | its title |
/// | `read_only`, `destructive`, `idempotent`, `open_world` (each also `= true` or `= false`) | the annotation hints; a hint not stated is left out, and the client assumes the specification's default |
/// | `rest = "METHOD /path/{field}"` | the REST route; each `{field}` is a field of the arguments |
/// | `body = "field"` | the argument field that takes the whole JSON body |
/// | `status = 201` | the REST success status (default 200) |
/// | `location = "/path/{field}"` | the REST success response's `Location` header; each `{field}` is a field of the result, and a result without one of them answers without the header |
/// | `output = Type` | the outputSchema from another type than the success type |
/// | `output_schema = expr` | the outputSchema as a JSON value built at run time |
/// | `input_schema = expr` | the inputSchema as a JSON value built at run time, for arguments no Rust type describes |
/// | `allow_unknown_args` (also `= true` or `= false`) | accept arguments the inputSchema does not name (by default refused by name) |
/// | `task` (or `task = "optional"`), `task = "required"` | its calls may run as tasks (the tasks extension, 2026-07-28), or only as tasks |
/// | `deferred_task` (also `= true` or `= false`) | with `task`: a call becomes a task only when its code calls [`Cx::start_task`] |
/// | `timeout_ms = 5000` | how long a call may take (default: the server's [`call_timeout`](ServerBuilder::call_timeout), else none); past it the call is cancelled and answers the tool error `{"error": "Time limit exceeded", "limitMs": N}` |
/// | `scopes = ["notes:write"]` | the OAuth scopes a caller's token must grant to call it (all of them), which an HTTP server with authorization checks on `/mcp` and REST (403 `insufficient_scope` otherwise) and states in its metadata and OpenAPI |
/// | `max_concurrent = 4` | how many calls may run at once; as many more wait, and one more is refused with the tool error `{"error": "Too many concurrent calls", "maxConcurrent": N}` |
///
/// Names and hints:
///
/// ```
/// use tooltable::{Error, Server, table, tool};
///
/// /// Deletes every draft.
/// #[tool(name = "purge_drafts", title = "Purge drafts", destructive, idempotent, open_world = false)]
/// async fn purge() -> Result<u32, Error> {
///     Ok(0)
/// }
///
/// /// Counts the drafts.
/// #[tool(read_only)]
/// async fn count() -> Result<u32, Error> {
///     Ok(3)
/// }
///
/// let server = Server::builder(()).tools(table![purge, count]).build()?;
/// let [purging, counting] = &server.table().descriptors()[..] else { unreachable!() };
/// assert_eq!((purging.name.as_str(), purging.title.as_deref()), ("purge_drafts", Some("Purge drafts")));
/// let hints = purging.annotations;
/// assert_eq!((hints.destructive, hints.idempotent, hints.open_world), (Some(true), Some(true), Some(false)));
/// assert_eq!((counting.annotations.read_only, counting.annotations.destructive), (Some(true), None));
/// assert_eq!(counting.description, "Counts the drafts.");
/// # Ok::<(), tooltable::tool::TableError>(())
/// ```
///
/// REST:
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use serde_json::Value;
/// use tooltable::{Error, Server, table, tool};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Put {
///     id: String,
///     document: Value,
/// }
///
/// /// Stores a document under an id.
/// #[tool(rest = "PUT /documents/{id}", body = "document", status = 201)]
/// async fn put(args: Put) -> Result<Value, Error> {
///     Ok(args.document)
/// }
///
/// let server = Server::builder(()).tools(table![put]).build()?;
/// let route = server.table().descriptors()[0].rest.clone().unwrap();
/// assert_eq!((route.method.as_str(), route.path.as_str()), ("PUT", "/documents/{id}"));
/// assert_eq!((route.body.as_deref(), route.status), (Some("document"), 201));
/// # Ok::<(), tooltable::tool::TableError>(())
/// ```
///
/// Schemas:
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Serialize;
/// use serde_json::{Value, json};
/// use tooltable::{Error, Server, table, tool};
///
/// #[derive(Serialize, JsonSchema)]
/// struct Report {
///     lines: u32,
/// }
///
/// /// Reports, as JSON built by hand.
/// #[tool(output = Report)]
/// async fn report() -> Result<Value, Error> {
///     Ok(json!({ "lines": 3 }))
/// }
///
/// /// Echoes whatever it is given.
/// #[tool(
///     input_schema = json!({ "type": "object", "properties": { "text": { "type": "string" } } }),
///     output_schema = json!({ "type": "object" }),
///     allow_unknown_args
/// )]
/// async fn echo(args: Value) -> Result<Value, Error> {
///     Ok(args)
/// }
///
/// let server = Server::builder(()).tools(table![report, echo]).build()?;
/// let [reporting, echoing] = &server.table().descriptors()[..] else { unreachable!() };
/// assert_eq!(reporting.output_schema.as_ref().unwrap()["properties"]["lines"]["type"], "integer");
/// assert_eq!(echoing.input_schema["properties"]["text"]["type"], "string");
/// assert_eq!(echoing.output_schema, Some(json!({ "type": "object" })));
/// assert!(echoing.allow_unknown_args && !reporting.allow_unknown_args);
/// # Ok::<(), tooltable::tool::TableError>(())
/// ```
///
/// Tasks:
///
/// ```
/// use tooltable::tool::TaskSupport;
/// use tooltable::{Cx, Error, Server, table, tool};
///
/// /// Builds the index, in the background when the client allows.
/// #[tool(task)]
/// async fn reindex() -> Result<u32, Error> {
///     Ok(0)
/// }
///
/// /// Archives everything; only as a task.
/// #[tool(task = "required")]
/// async fn archive() -> Result<u32, Error> {
///     Ok(0)
/// }
///
/// /// Asks what to import, then imports it in the background.
/// #[tool(task, deferred_task)]
/// async fn import(cx: &Cx<()>) -> Result<u32, Error> {
///     cx.start_task().await;
///     Ok(0)
/// }
///
/// let server = Server::builder(()).tools(table![reindex, archive, import]).build()?;
/// let support: Vec<_> = server.table().descriptors().iter().map(|d| (d.task_support, d.deferred_task)).collect();
/// assert_eq!(support, [(TaskSupport::Optional, false), (TaskSupport::Required, false), (TaskSupport::Optional, true)]);
/// # Ok::<(), tooltable::tool::TableError>(())
/// ```
///
/// Scopes:
///
/// ```
/// use tooltable::{Error, Server, table, tool};
///
/// /// Deletes every note.
/// #[tool(destructive, scopes = ["notes:write", "notes:admin"])]
/// async fn purge_notes() -> Result<u32, Error> {
///     Ok(0)
/// }
///
/// let server = Server::builder(()).tools(table![purge_notes]).build()?;
/// assert_eq!(server.table().descriptors()[0].scopes, ["notes:write", "notes:admin"]);
/// # Ok::<(), tooltable::tool::TableError>(())
/// ```
///
/// Limits:
///
/// ```
/// use std::time::Duration;
/// use tooltable::{Error, ErrorKind, Server, table, tool};
///
/// /// Renders the report, one at a time, in at most 50 ms.
/// #[tool(timeout_ms = 50, max_concurrent = 1)]
/// async fn render() -> Result<String, Error> {
///     tokio::time::sleep(Duration::from_secs(1)).await;
///     Ok("done".into())
/// }
///
/// let server = Server::builder(()).tools(table![render]).build()?;
/// let limits = server.table().descriptors()[0].limits;
/// assert_eq!((limits.timeout_ms, limits.max_concurrent), (Some(50), Some(1)));
/// let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build()?;
/// let late = runtime.block_on(server.call("render", serde_json::json!({}))).unwrap_err();
/// assert_eq!(late.kind, ErrorKind::Timeout);
/// assert_eq!(late.body, serde_json::json!({ "error": "Time limit exceeded", "limitMs": 50 }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub use tooltable_macros::tool;

/// The server's settings and handles: what [`Server::builder`] configures, the key that signs
/// multi-round request states, cache hints, and a handle that does not keep the server alive.
///
/// ```
/// use tooltable::Server;
/// use tooltable::server::{CacheHint, CacheScope, StateKey};
///
/// let key = StateKey::from_secret(b"a secret every instance is given").unwrap();
/// let server = Server::builder(())
///     .info("notes", "1.0.0")
///     .page_size(50)
///     .cache_hint(CacheHint { ttl_ms: 60_000, scope: CacheScope::Public })
///     .state_key(key)
///     .build()?;
/// assert_eq!((server.info().name.as_str(), server.config().page_size), ("notes", 50));
/// let weak = server.downgrade();
/// assert!(weak.upgrade().is_some());
/// drop(server);
/// assert!(weak.upgrade().is_none(), "a weak handle does not keep the server alive");
/// # Ok::<(), tooltable::tool::TableError>(())
/// ```
pub mod server {
    pub use crate::engine::server::{
        Config, ReplaceError, Server, ServerBuilder, ServerInfo, SubscriptionObserver, WeakServer,
    };
    pub use crate::engine::stateless::request_state::{ROUND_LIFETIME, StateError, StateKey};
    pub use crate::engine::stateless::{CacheHint, CacheScope};
}

/// What a transport needs and a server author does not: the [`Session`](transport::Session)
/// that takes messages in, each with its [`RequestContext`](transport::RequestContext), and gives
/// them out through an [`Outbox`](transport::Outbox) as [`Outgoing`](transport::Outgoing)
/// messages and signals; the JSON-RPC codec; the protocol versions; and the table of tools as the
/// session sees it. docs/guide/writing-a-transport.md builds one.
///
/// ```
/// use tokio::sync::mpsc;
/// use tooltable::Server;
/// use tooltable::context::Transport;
/// use tooltable::transport::jsonrpc::RequestId;
/// use tooltable::transport::{Destination, Outgoing, RequestContext, Session};
///
/// let server = Server::builder(()).build()?;
/// let (outbox, mut out) = mpsc::unbounded_channel();
/// let session = Session::new(&server, outbox);
/// let context = RequestContext::new(Transport::Custom("example"));
/// session.handle_bytes(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, &context);
/// let Ok(Outgoing::Message { json, destination }) = out.try_recv() else { panic!("an answer at once") };
/// assert_eq!(json, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
/// assert_eq!(destination, Destination::Response(RequestId::Number(1)));
/// # Ok::<(), tooltable::tool::TableError>(())
/// ```
pub mod transport {
    pub use crate::api::context::request::RequestContext;
    pub use crate::api::numbers;
    pub use crate::api::tool::BoxFuture;
    pub use crate::engine::era::SUPPORTED_VERSIONS;
    pub use crate::engine::handshake::{HANDSHAKE_VERSIONS, LATEST_VERSION};
    pub use crate::engine::jsonrpc;
    pub use crate::engine::outbox::{Destination, Outbox, Outgoing};
    pub use crate::engine::session::{Session, ToolCall};
    pub use crate::engine::stateless::{PROTOCOL_VERSION as META_PROTOCOL_VERSION, STATELESS_VERSIONS, StatelessCall};
    pub use crate::engine::table::{Entry, MarkedProperties, MarkedProperty, Table};
}
