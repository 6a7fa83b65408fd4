//! A `tools/call` read from its message's text before the session takes it: for a transport that
//! looks at a request's id and tool before handing it over (Streamable HTTP registers the POST
//! that waits for the answer), and would otherwise decode the message to a JSON value first.

use std::borrow::Cow;
use std::sync::Arc;

use super::Session;
use crate::api::context::RequestContext;
use crate::engine::era::RequestEra;
use crate::engine::jsonrpc::RequestId;
use crate::engine::jsonrpc::raw_request::RawRequest;
use crate::engine::methods::tool_call::{self, CallParams, TextParams};
use crate::engine::params::Field;
use crate::engine::stateless::StatelessCall;

/// A `tools/call` request of an initialized session, read from its text, its arguments read into
/// the tool's argument type where they can be (else kept as text). Made by [`Session::read_tool_call`], handled by
/// [`Session::call_tool`].
pub struct ToolCall<'a>(RawRequest<TextParams<'a>>);

impl ToolCall<'_> {
    /// The request's id.
    pub fn id(&self) -> &RequestId {
        &self.0.id
    }

    /// The name of the tool it calls; `None` when `params.name` is no string (the session
    /// refuses the call).
    pub fn tool(&self) -> Option<&str> {
        match &self.0.params.0.name {
            Field::Given(name) => Some(name),
            _ => None,
        }
    }
}

impl std::fmt::Debug for ToolCall<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCall").field("id", self.id()).field("tool", &self.tool()).finish_non_exhaustive()
    }
}

impl<S: Send + Sync + 'static> Session<S> {
    /// The message, when the session is initialized and `bytes` are a `tools/call` request read
    /// as [`handle_bytes`](Self::handle_bytes) reads one; `None` for anything else, which
    /// `handle_bytes` (or [`decode`](crate::transport::jsonrpc::decode) and [`handle`](Self::handle))
    /// then takes.
    pub fn read_tool_call<'a>(&self, bytes: &'a [u8]) -> Option<ToolCall<'a>> {
        if !self.is_initialized() {
            return None;
        }
        tool_call::read(bytes, |tool, text| self.0.server.read_typed(tool, text)).map(ToolCall)
    }

    /// Handles a call [`read_tool_call`](Self::read_tool_call) read, as `handle_bytes` handles
    /// its message.
    pub fn call_tool(&self, call: ToolCall<'_>, context: &RequestContext) {
        self.0.tool_call(call.0, RequestEra::Handshake, context);
    }

    /// Handles a call [`StatelessCall::read`] read, as [`handle`](Self::handle) handles its
    /// message decoded: in its own era on a session with no handshake (as a request of the
    /// stateless revision is served), in the session's after one. A session that nothing else
    /// holds (one [readied for another call](Self::ready_for_another_call)) writes the call's
    /// `_meta` over its last call's, rather than making one.
    pub fn call_stateless(&mut self, call: StatelessCall<'_>, context: &RequestContext) {
        let era = match self.is_initialized() {
            true => RequestEra::Handshake,
            false => match Arc::get_mut(&mut self.0) {
                Some(core) => call.era_in(&mut core.last_meta),
                None => call.era_in(&mut None),
            },
        };
        // The `_meta` of a call read so holds no progress token: none is read from it.
        let params =
            CallParams { name: Field::Given(Cow::Borrowed(call.name)), meta: Field::Absent, arguments: call.arguments };
        self.0.tool_call(RawRequest { id: call.id, params: TextParams(params) }, era, context);
    }
}
