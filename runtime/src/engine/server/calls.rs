//! One tool call: through the server's layers, then the tool's limits, then the tool.

use serde_json::Value;

use super::Server;
use crate::api::context::Cx;
use crate::api::layer::{Call, Innermost, Next, Outcome};
use crate::api::rpc::RpcError;
use crate::api::tool::BoxFuture;
use crate::engine::table::{self, Arguments, Ended, Entry, Invocation};

impl<S: Send + Sync + 'static> Server<S> {
    /// Runs a call of `tool`: arguments that are no object are a protocol fault; anything else
    /// is the call's outcome. Without layers, the tool's limits and the tool are all there is:
    /// nothing is boxed or called through a pointer for the layers' sake, and its success is
    /// written straight to JSON text when `written` (the layers see it as a value).
    pub(crate) fn run_call<'a>(
        &'a self,
        tool: &'a Entry<S>,
        cx: Cx<S>,
        args: Option<Arguments>,
        written: bool,
    ) -> Result<Invocation<'a>, RpcError> {
        let args = table::arguments(args)?;
        let default_timeout_ms = self.0.config.call_timeout.map(|limit| limit.as_millis().max(1) as u64);
        // Arguments read when the server had no layer are the tool's type alone: their call runs
        // as read, as a call already running does when a layer is set.
        if !self.has_layers() || args.is_typed_only() {
            return Ok(tool.invoke(cx, args, default_timeout_ms, written));
        }
        let outer = self.0.outer_layer.get();
        Ok(Invocation::Boxed(Box::pin(async move {
            let innermost = Limited { tool, default_timeout_ms };
            let (call, next) =
                (Call::new(&tool.descriptor, args.into_value(), cx), Next::new(&self.0.layers, &innermost));
            Ended::Outcome(match outer {
                Some(outer) => outer.call(call, next).await,
                None => next.run(call).await,
            })
        })))
    }

    /// The arguments at the start of `text` read into the argument type of the tool `name`, as
    /// [`Table::read_typed`](table::Table::read_typed) reads them: their text is kept only when
    /// the server has a layer, which reads them as a value.
    pub(crate) fn read_typed(&self, name: &str, text: &str) -> Option<(table::Typed, usize)> {
        self.0.table.read_typed(name, text, self.has_layers())
    }

    /// Whether calls pass through layers, which see their arguments and outcomes as values.
    fn has_layers(&self) -> bool {
        self.0.outer_layer.get().is_some() || !self.0.layers.is_empty()
    }
}

/// The tool within its limits, where the last layer passes a call on.
struct Limited<'a, S> {
    tool: &'a Entry<S>,
    default_timeout_ms: Option<u64>,
}

impl<S: Send + Sync + 'static> Innermost<S> for Limited<'_, S> {
    fn run(&self, cx: Cx<S>, args: Value) -> BoxFuture<'_, Outcome> {
        Box::pin(async move {
            self.tool.invoke(cx, Arguments::Value(args), self.default_timeout_ms, false).await.into_outcome()
        })
    }
}
