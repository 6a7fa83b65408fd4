//! Layers: code of the server's own around every tool call, whatever carried it (stdio,
//! Streamable HTTP of either era, REST, a task, [`Server::call`](crate::Server::call)).
//!
//! A [`Layer`] is given the [`Call`] (the tool's descriptor, the arguments, the call's [`Cx`]
//! with its transport, era and principal) and the [`Next`] step, and gives back the call's
//! [`Outcome`]. It may look and pass the call on (`next.run(call).await`), change the arguments
//! first, replace the outcome after, or refuse the call ([`Outcome::Refused`]) without passing
//! it on. Layers are added with [`ServerBuilder::layer`](crate::ServerBuilder::layer) and see
//! a call in the order they were added, the first outermost. Inside the last one the call meets
//! the tool's own limits ([`CallLimits`](crate::tool::CallLimits): argument validation, then a
//! slot under `max_concurrent`, then the time limit), then the tool. A server without layers
//! runs none of this: no allocation and no dynamic call is added to its calls.
//!
//! A tool that calls another with [`Cx::call_tool`] runs it directly, without layers or limits
//! (its own call went through them).
//!
//! ```
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use tooltable::layer::{Call, Layer, Next, Outcome};
//! use tooltable::tool::BoxFuture;
//! use tooltable::{Error, Server, table, tool};
//!
//! /// Refuses destructive tools to callers without a principal, and counts the calls it passes on.
//! #[derive(Default)]
//! struct Guard {
//!     passed: AtomicUsize,
//! }
//!
//! impl<S: Send + Sync + 'static> Layer<S> for Guard {
//!     fn call<'a>(&'a self, call: Call<'a, S>, next: Next<'a, S>) -> BoxFuture<'a, Outcome> {
//!         Box::pin(async move {
//!             if call.tool.annotations.destructive == Some(true) && call.cx.principal().is_none() {
//!                 return Outcome::Refused(Error::forbidden("sign in to delete"));
//!             }
//!             self.passed.fetch_add(1, Ordering::Relaxed);
//!             next.run(call).await
//!         })
//!     }
//! }
//!
//! /// Deletes everything.
//! #[tool(destructive)]
//! async fn purge() -> Result<u32, Error> {
//!     Ok(0)
//! }
//!
//! let server = Server::builder(()).tools(table![purge]).layer(Guard::default()).build()?;
//! let runtime = tokio::runtime::Builder::new_current_thread().build()?;
//! let refused = runtime.block_on(server.call("purge", serde_json::json!({}))).unwrap_err();
//! assert_eq!(refused.message(), Some("sign in to delete"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod call_log;

use std::time::Instant;

use serde_json::Value;

use crate::api::context::Cx;
use crate::api::descriptor::ToolDescriptor;
use crate::api::error::Error;
use crate::api::output::Output;
use crate::api::tool::BoxFuture;

pub use call_log::{CALLS_TARGET, CallLog};

/// Code around every tool call of a server: see the [module](self).
pub trait Layer<S>: Send + Sync + 'static {
    /// Handles one call: passes it on with `next.run(call).await` (or not), and gives its outcome.
    fn call<'a>(&'a self, call: Call<'a, S>, next: Next<'a, S>) -> BoxFuture<'a, Outcome>;
}

/// One tool call, as a layer sees it.
pub struct Call<'a, S> {
    /// The tool called.
    pub tool: &'a ToolDescriptor,
    /// Its arguments, an object, not yet validated against the inputSchema (validation follows
    /// the layers, so a layer that changes them has its change validated).
    pub args: Value,
    /// The call's context: the server's state, the transport, era and principal of the call.
    pub cx: Cx<S>,
    started: Instant,
}

impl<'a, S> Call<'a, S> {
    pub(crate) fn new(tool: &'a ToolDescriptor, args: Value, cx: Cx<S>) -> Self {
        Call { tool, args, cx, started: Instant::now() }
    }

    /// When the call reached the first layer: `call.started().elapsed()` after `next.run` is
    /// the time the call took, the other layers' included.
    pub fn started(&self) -> Instant {
        self.started
    }
}

impl<S> std::fmt::Debug for Call<'_, S> {
    // The arguments are left out: they may hold what a log must not show.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call").field("tool", &self.tool.name).field("cx", &self.cx).finish_non_exhaustive()
    }
}

/// What runs a call once the layers have passed it on: the tool's limits, then the tool. The
/// engine implements it.
pub(crate) trait Innermost<S>: Send + Sync {
    fn run(&self, cx: Cx<S>, args: Value) -> BoxFuture<'_, Outcome>;
}

/// The rest of the way to the tool: the layers after this one, then the tool's limits and the tool.
pub struct Next<'a, S> {
    layers: &'a [Box<dyn Layer<S>>],
    innermost: &'a dyn Innermost<S>,
}

impl<'a, S: Send + Sync + 'static> Next<'a, S> {
    pub(crate) fn new(layers: &'a [Box<dyn Layer<S>>], innermost: &'a dyn Innermost<S>) -> Self {
        Next { layers, innermost }
    }

    /// Passes `call` on to the next layer, or to the tool after the last one.
    pub fn run(self, call: Call<'a, S>) -> BoxFuture<'a, Outcome> {
        match self.layers.split_first() {
            Some((layer, layers)) => layer.call(call, Next { layers, innermost: self.innermost }),
            None => self.innermost.run(call.cx, call.args),
        }
    }
}

impl<S> std::fmt::Debug for Next<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Next").field("layers", &self.layers.len()).finish_non_exhaustive()
    }
}

/// How a call ended. A call that is cancelled (by its client, its session's end, `tasks/cancel`)
/// has no outcome: its future, the layers' included, is dropped.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The tool answered.
    Ok(Output),
    /// The tool failed, or its arguments were refused, or it ran past its time limit.
    ToolError(Error),
    /// A layer, or the tool's concurrency limit, refused the call before the tool ran. The client
    /// sees it as a tool error.
    Refused(Error),
}

impl Outcome {
    /// What the caller gets: the output, or the error of a failure or a refusal.
    pub fn into_result(self) -> Result<Output, Error> {
        match self {
            Outcome::Ok(output) => Ok(output),
            Outcome::ToolError(error) | Outcome::Refused(error) => Err(error),
        }
    }

    /// Its name in logs: `ok`, `tool_error` or `refused`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Outcome::Ok(_) => "ok",
            Outcome::ToolError(_) => "tool_error",
            Outcome::Refused(_) => "refused",
        }
    }
}

impl From<Result<Output, Error>> for Outcome {
    fn from(result: Result<Output, Error>) -> Self {
        match result {
            Ok(output) => Outcome::Ok(output),
            Err(error) => Outcome::ToolError(error),
        }
    }
}
