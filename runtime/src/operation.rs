//! What one `#[operation]` function is to the runtime: its static metadata and a way to call it.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::context::Cx;
use crate::outcome::CallResult;

/// A boxed future that may cross threads, the shape every call takes inside the table.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The MCP tool annotations, as the operation states them. A hint left `None` is not emitted,
/// and a client then assumes the specification's default: `readOnlyHint` false,
/// `destructiveHint` true, `idempotentHint` false, `openWorldHint` true.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotations {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

impl Annotations {
    /// The MCP `ToolAnnotations` object: the stated hints, in the specification's order.
    pub fn to_mcp(&self) -> serde_json::Map<String, Value> {
        [
            ("readOnlyHint", self.read_only),
            ("destructiveHint", self.destructive),
            ("idempotentHint", self.idempotent),
            ("openWorldHint", self.open_world),
        ]
        .into_iter()
        .filter_map(|(key, hint)| hint.map(|h| (key.to_owned(), Value::Bool(h))))
        .collect()
    }
}

/// Whether a tool's calls may run as tasks (the `io.modelcontextprotocol/tasks` extension), as
/// its MCP descriptor states in `execution.taskSupport`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// Always answered in the call's own response (the default).
    #[default]
    Forbidden,
    /// Run as a task for a client that declares the extension; synchronously for one that does not.
    Optional,
    /// Only as a task: a client that does not declare the extension is refused (-32021).
    Required,
}

impl TaskSupport {
    /// The value of `execution.taskSupport`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// The REST route an operation is also served at (`rest = "GET /models/{id}"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestRoute {
    /// Upper-case HTTP method: GET, POST, PUT, PATCH or DELETE.
    pub method: String,
    /// Path template; `{name}` binds the argument field `name`.
    pub path: String,
    /// The argument field that takes the whole JSON body, if one does.
    pub body: Option<String>,
    /// The success status code.
    pub status: u16,
}

impl RestRoute {
    /// The `{name}` parameters of the path template, in order.
    pub fn path_params(&self) -> impl Iterator<Item = &str> {
        self.path.split('/').filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
    }
}

/// What the `#[operation]` attribute writes down about a function, all known at compile time
/// except the schemas, which schemars builds on first use.
#[doc(hidden)]
pub struct OperationMeta {
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub annotations: Annotations,
    pub rest: Option<StaticRestRoute>,
    pub allow_unknown_args: bool,
    pub task_support: TaskSupport,
    /// The call becomes a task when its code calls `Cx::start_task`, not at once.
    pub deferred_task: bool,
    pub input_schema: fn() -> Value,
    pub output_schema: fn() -> Option<Value>,
    /// The schema of the error bodies, when the error type states one.
    pub error_schema: fn() -> Option<Value>,
}

/// The compile-time form of [`RestRoute`].
#[doc(hidden)]
pub struct StaticRestRoute {
    pub method: &'static str,
    pub path: &'static str,
    pub body: Option<&'static str>,
    pub status: u16,
}

/// An operation of a table whose server state is `S`. Implemented by `#[operation]`; rarely by hand.
pub trait Operation<S>: Send + Sync + 'static {
    #[doc(hidden)]
    fn meta(&self) -> OperationMeta;
    /// Runs the operation on JSON arguments (deserialisation failures become invalid-input failures).
    fn call(&self, cx: Cx<S>, args: Value) -> BoxFuture<'static, CallResult>;
}

/// Builds a list of boxed operations for a table: `table![list_models, get_state]`.
#[macro_export]
macro_rules! table {
    ($($op:expr),* $(,)?) => {
        ::std::vec![$(::std::boxed::Box::new($op) as ::std::boxed::Box<dyn $crate::Operation<_>>),*]
    };
}
