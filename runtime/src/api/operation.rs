//! What one `#[operation]` function is to the runtime: its static metadata and a way to call it.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::api::context::Cx;
use crate::api::descriptor::{Annotations, TaskSupport};
use crate::api::outcome::CallResult;

/// A boxed future that may cross threads, the shape every call takes inside the table.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

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
