//! The call log: one `tracing` event per call.

use std::time::Instant;

use super::{Call, Layer, Next, Outcome};
use crate::api::context::{Cx, Era, Transport};
use crate::api::tool::BoxFuture;

/// The target of the call log's events: `RUST_LOG=tooltable::calls=info` shows them.
pub const CALLS_TARGET: &str = "tooltable::calls";

/// Logs every call as one `tracing` event at target [`CALLS_TARGET`], level info, once it ends,
/// with the fields `tool`, `transport` (`stdio`, `http`, `rest`, `in_process` or a custom
/// transport's name), `era` (`handshake`, `stateless`, or `none` where there is no MCP protocol:
/// REST, in process), `outcome` and `ms`, the time since the call reached the first layer. The
/// outcome is `ok`, `tool_error`, `refused`, `cancelled` (the call was dropped: its client
/// cancelled it, or its session or connection ended), or `input_required` (a 2026-07-28 round
/// stopped the call to ask the client; the client's retry is a call of its own). The arguments'
/// values are never logged.
///
/// The standard command line adds it to every server it runs, outermost, when its log filter
/// lets the events through (it does by default). Added first, it sees every other layer's
/// refusals and time; when the filter drops its events it only passes calls on.
///
/// ```
/// use tooltable::layer::CallLog;
/// use tooltable::{Error, Server, table, tool};
///
/// /// Says hello.
/// #[tool]
/// async fn hello() -> Result<String, Error> {
///     Ok("hello".into())
/// }
///
/// let server = Server::builder(()).tools(table![hello]).layer(CallLog).build()?;
/// // With a subscriber that lets `tooltable::calls` through at info, each call logs a line like
/// // `INFO tooltable::calls: tool=hello transport=in_process era=none outcome=ok ms=0.004`.
/// # Ok::<(), tooltable::tool::TableError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct CallLog;

impl<S: Send + Sync + 'static> Layer<S> for CallLog {
    fn call<'a>(&'a self, call: Call<'a, S>, next: Next<'a, S>) -> BoxFuture<'a, Outcome> {
        if !tracing::enabled!(target: CALLS_TARGET, tracing::Level::INFO) {
            return next.run(call);
        }
        let mut entry = Entry {
            tool: &call.tool.name,
            transport: call.cx.transport(),
            era: call.cx.era(),
            started: call.started(),
            cx: call.cx.clone(),
            logged: false,
        };
        Box::pin(async move {
            let outcome = next.run(call).await;
            entry.log(outcome.as_str());
            outcome
        })
    }
}

/// One call's line, written when the call ends, or when it is dropped before it does.
struct Entry<'a, S> {
    tool: &'a str,
    transport: Transport,
    era: Option<Era>,
    started: Instant,
    cx: Cx<S>,
    logged: bool,
}

impl<S> Entry<'_, S> {
    fn log(&mut self, outcome: &str) {
        self.logged = true;
        let ms = self.started.elapsed().as_micros() as f64 / 1000.0;
        tracing::info!(
            target: CALLS_TARGET,
            tool = %self.tool,
            transport = %self.transport.as_str(),
            era = %self.era.map_or("none", Era::as_str),
            outcome = %outcome,
            ms,
        );
    }
}

impl<S> Drop for Entry<'_, S> {
    fn drop(&mut self) {
        if !self.logged {
            let outcome = if self.cx.awaits_input() { "input_required" } else { "cancelled" };
            self.log(outcome);
        }
    }
}
