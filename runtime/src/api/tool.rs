//! Tools: what one `#[tool]` function is to the runtime, its descriptor (what `tools/list` shows
//! and the REST route), a tool added at run time, and what a tool gives back.
//!
//! ```
//! use serde_json::{Value, json};
//! use tooltable::tool::{DynamicTool, Output, ToolDescriptor};
//! use tooltable::Server;
//!
//! let schema = json!({ "type": "object", "properties": { "text": { "type": "string" } } });
//! let echo = DynamicTool::new(ToolDescriptor::new("echo", "Echoes its arguments.", schema), |_cx, args: Value| async move {
//!     Ok(Output::Json(args))
//! });
//! let server = Server::builder(()).build()?;
//! server.add_tool(echo)?;
//! let runtime = tokio::runtime::Builder::new_current_thread().build()?;
//! assert_eq!(runtime.block_on(server.call("echo", json!({ "text": "hi" }))), Ok(json!({ "text": "hi" })));
//! let listed = server.table().descriptors()[0].to_mcp();
//! assert_eq!(listed["inputSchema"]["properties"]["text"]["type"], "string");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::any::Any;
use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::api::context::Cx;
use crate::api::error::Error;

pub use crate::api::descriptor::{
    Annotations, CallLimits, DynamicHandler, DynamicTool, RestRoute, TaskSupport, ToolDescriptor,
};
use crate::api::output::Rendered;
pub use crate::api::output::{IntoOutput, Output};
pub use crate::api::table_error::TableError;

/// A boxed future that may cross threads, the shape every call takes inside the table.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What the `#[tool]` attribute writes down about a function, all known at compile time
/// except the schemas, which schemars builds on first use.
#[doc(hidden)]
#[derive(Debug)]
pub struct ToolMeta {
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub annotations: Annotations,
    pub rest: Option<StaticRestRoute>,
    pub allow_unknown_args: bool,
    pub task_support: TaskSupport,
    /// The call becomes a task when its code calls `Cx::start_task`, not at once.
    pub deferred_task: bool,
    /// The time limit and concurrency limit of its calls.
    pub limits: CallLimits,
    /// The OAuth scopes a caller must have been granted to call it.
    pub scopes: &'static [&'static str],
    pub input_schema: fn() -> Value,
    pub output_schema: fn() -> Option<Value>,
    /// The schema of the error bodies, when the error type states one.
    pub error_schema: fn() -> Option<Value>,
}

/// The compile-time form of [`RestRoute`].
#[doc(hidden)]
#[derive(Debug)]
pub struct StaticRestRoute {
    pub method: &'static str,
    pub path: &'static str,
    pub body: Option<&'static str>,
    pub status: u16,
    pub location: Option<&'static str>,
}

/// A tool of a table whose server state is `S`: what `#[tool]` makes of a function (a unit
/// struct named like it). Implemented by the attribute; a tool built at run time is a
/// [`DynamicTool`](crate::tool::DynamicTool) instead.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool of a server whose state is `{S}`",
    note = "put `#[tool]` on an `async fn`; a function whose context is `&Cx<T>` serves only a server whose state is `T`"
)]
pub trait Tool<S>: Send + Sync + 'static {
    #[doc(hidden)]
    fn meta(&self) -> ToolMeta;
    /// Runs the tool on JSON arguments (deserialisation failures become invalid-input failures).
    fn call(&self, cx: Cx<S>, args: Value) -> BoxFuture<'static, Result<Output, Error>>;

    /// Reads the JSON object of arguments at the start of `args` straight into the tool's
    /// argument type, and says how long its text is; only for a tool whose inputSchema is its
    /// argument type's. `None` when they do not read as that type (or the tool reads no text):
    /// the caller then checks them against the schema and calls [`Tool::call`], which says what
    /// is wrong.
    #[doc(hidden)]
    fn read_text(&self, args: &str) -> Option<(TypedArguments, usize)> {
        let _ = args;
        None
    }

    /// Runs the tool on arguments [`Tool::read_text`] read; its success is written straight to
    /// JSON text when `written`. `Err` hands the context back when the arguments are not of
    /// this tool's type.
    #[doc(hidden)]
    fn call_typed(
        &self,
        cx: Cx<S>,
        args: TypedArguments,
        written: bool,
    ) -> Result<BoxFuture<'static, Result<Rendered, Error>>, Cx<S>> {
        let _ = (args, written);
        Err(cx)
    }
}

/// Arguments read into a tool's argument type, whatever that is, from the time the request is
/// read to the time the call starts.
#[doc(hidden)]
pub struct TypedArguments(pub(crate) Box<dyn Any + Send>);

impl std::fmt::Debug for TypedArguments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TypedArguments")
    }
}

/// The tools of a server, in the order `tools/list` shows them: a list of boxed [`Tool`]s for
/// [`ServerBuilder::tools`](crate::ServerBuilder::tools).
///
/// ```
/// use tooltable::{Error, Server, table, tool};
///
/// /// Says hello.
/// #[tool(read_only)]
/// async fn hello() -> Result<String, Error> {
///     Ok("hello".into())
/// }
///
/// /// Says goodbye.
/// #[tool(read_only)]
/// async fn goodbye() -> Result<String, Error> {
///     Ok("goodbye".into())
/// }
///
/// let server = Server::builder(()).tools(table![hello, goodbye]).build()?;
/// let names: Vec<String> = server.table().descriptors().into_iter().map(|d| d.name).collect();
/// assert_eq!(names, ["hello", "goodbye"]);
/// # Ok::<(), tooltable::tool::TableError>(())
/// ```
#[macro_export]
macro_rules! table {
    ($($tool:expr),* $(,)?) => {
        ::std::vec![$(::std::boxed::Box::new($tool) as ::std::boxed::Box<dyn $crate::tool::Tool<_>>),*]
    };
}
