//! One MCP session, independent of the transport: messages go in through [`Session::handle`]
//! (with the [`RequestContext`] the transport knows of each) and come out, in order, through the
//! [`Outbox`] the transport gives [`Session::new`].

mod call;
mod catch_unwind;
mod read_call;
mod request_map;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::api::context::{ClientRequestError, Principal, RequestContext};
use crate::api::lock;
use crate::api::logging::LogLevel;
use crate::engine::era::RequestEra;
use crate::engine::handshake::{self, SessionState, batch};
use crate::engine::jsonrpc::raw_request::RawRequest;
use crate::engine::jsonrpc::{self, Incoming, RequestId, RpcError};
use crate::engine::methods::tool_call::{self, TextParams};
use crate::engine::methods::{self, tool_result, tools};
use crate::engine::outbox::{Destination, Outbox, Outgoing};
use crate::engine::params::{self, Field};
use crate::engine::server::Server;
use crate::engine::stateless::{self, RequestMeta, StatelessResult, listen};

pub(crate) use call::{CallScope, InFlight, Reply};
pub(crate) use catch_unwind::catch_panic;
pub use read_call::ToolCall;
use request_map::RequestMap;

/// The session behind a handle; shared with the calls it runs.
pub(crate) struct SessionCore<S> {
    /// The key the server knows the session by; none for a session of stateless calls, which
    /// the server's broadcasts have nothing to tell (see [`Session::for_stateless_call`]).
    key: Option<u64>,
    pub(crate) server: Server<S>,
    /// Shared, so that a transport may keep the outbox of a session it made (see
    /// [`Session::for_stateless_call`]) with no second allocation around it.
    out: Arc<dyn Outbox>,
    pub(crate) state: Mutex<SessionState>,
    /// Whether `initialize` has been answered, as `state` says, set under its lock: every request
    /// asks, and a lock would have all the session's callers take it in turn.
    pub(crate) initialized: AtomicBool,
    /// Whether the revision `state` names has structured output (titles, outputSchema,
    /// structuredContent), set with it: every tool call asks.
    pub(crate) structured_output: AtomicBool,
    /// The calls running: a handful, found by their ids in a list.
    pub(crate) in_flight: Mutex<RequestMap<InFlight<S>>>,
    /// Open `subscriptions/listen` requests (2026-07-28), which get no response until they end.
    pub(crate) listeners: Mutex<listen::Listeners>,
    /// Whether a listen was ever opened: until one is, a request's id is not looked for among them.
    pub(crate) has_listened: AtomicBool,
    // An ordered map: a handful of entries, keyed by small ids, needs no hashing.
    pending: Mutex<BTreeMap<RequestId, oneshot::Sender<Result<Value, RpcError>>>>,
    /// JSON-RPC batches (2025-03-26) whose responses are being gathered.
    pub(crate) batches: batch::Batches,
    next_request: AtomicI64,
    /// Signalled when the last running call finishes.
    pub(crate) idle: tokio::sync::Notify,
    /// Who sent the first message the session handled (its `initialize`).
    opened_by: OnceLock<Option<Arc<Principal>>>,
    /// The `_meta` of the last stateless call, which the next call's is written over once nothing
    /// else holds it (see [`Session::call_stateless`]).
    last_meta: Option<Arc<RequestMeta>>,
}

/// A session handle. Dropping it (or [`Session::close`]) aborts the calls still running.
pub struct Session<S: Send + Sync + 'static>(Arc<SessionCore<S>>);

impl<S: Send + Sync + 'static> Session<S> {
    /// A new session on `server`, its outgoing messages sent to `outbox`.
    pub fn new(server: &Server<S>, outbox: impl Outbox) -> Self {
        let key = server.next_session_key();
        let session = Self::unregistered(server, Arc::new(outbox), Some(key));
        server.register(key, &session.0);
        session
    }

    /// A session for `tools/call`s of the stateless revision
    /// ([`StatelessCall`](crate::transport::StatelessCall)), one at a time (see
    /// [`ready_for_another_call`](Self::ready_for_another_call)), its outgoing messages sent to
    /// `outbox`, which the transport may keep a handle on (to wait for a call's answer, say).
    /// The server does not count it among the sessions it tells of its changes: a session with no
    /// handshake hears of them only through a `subscriptions/listen`, which a call's session never
    /// serves.
    pub fn for_stateless_call(server: &Server<S>, outbox: Arc<impl Outbox>) -> Self {
        Self::unregistered(server, outbox, None)
    }

    /// Readies a session [made for one stateless call](Self::for_stateless_call) to serve another
    /// through the same outbox: true when nothing of its last call runs any more (no handle is
    /// left but this one), and it then forgets who sent that call. A transport that keeps such a
    /// session for its connection's next call spares making one and dropping it per call.
    pub fn ready_for_another_call(&mut self) -> bool {
        let Some(core) = Arc::get_mut(&mut self.0) else { return false };
        // Every running call holds the core, so none runs; a session of calls has no handshake
        // and no listen, and asks the client nothing outside a call.
        if core.key.is_some() || *core.initialized.get_mut() || *core.has_listened.get_mut() {
            return false;
        }
        core.opened_by = OnceLock::new();
        true
    }

    /// A session the server does not know of yet: it knows it by `key`, once registered.
    fn unregistered(server: &Server<S>, outbox: Arc<dyn Outbox>, key: Option<u64>) -> Self {
        let core = Arc::new(SessionCore {
            key,
            server: server.clone(),
            out: outbox,
            state: Mutex::new(SessionState::default()),
            initialized: AtomicBool::new(false),
            structured_output: AtomicBool::new(handshake::has_structured_output(handshake::LATEST_VERSION)),
            in_flight: Mutex::new(RequestMap::default()),
            listeners: Mutex::new(BTreeMap::new()),
            has_listened: AtomicBool::new(false),
            pending: Mutex::new(BTreeMap::new()),
            batches: batch::Batches::default(),
            next_request: AtomicI64::new(1),
            idle: tokio::sync::Notify::new(),
            opened_by: OnceLock::new(),
            last_meta: None,
        });
        Session(core)
    }

    /// Takes one raw message (one line, one POST body): decodes it and handles it. A message that
    /// does not decode is answered with the JSON-RPC error it deserves. A batch, in a session that
    /// speaks a revision with batches, is answered with one message: the array of its responses.
    pub fn handle_bytes(&self, bytes: &[u8], context: &RequestContext) {
        if jsonrpc::is_batch(bytes) && self.accepts_batches() {
            return match jsonrpc::decode_batch(bytes) {
                Ok(members) => self.0.batch(members, context, batch::Deliver::Outbox),
                Err(e) => self.answer_undecodable(&e),
            };
        }
        // The hot path: a tool call, its arguments left as text for the tool to read.
        if self.is_initialized()
            && let Some(call) = tool_call::read(bytes, |tool, text| self.0.server.read_typed(tool, text))
        {
            return self.0.tool_call(call, RequestEra::Handshake, context);
        }
        match jsonrpc::decode(bytes) {
            Ok(msg) => self.handle(msg, context),
            Err(e) => self.answer_undecodable(&e),
        }
    }

    /// Whether the session speaks a revision with JSON-RPC batches (2025-03-26, negotiated).
    pub fn accepts_batches(&self) -> bool {
        lock(&self.0.state).accepts_batches()
    }

    /// Handles the members of a batch (see [`jsonrpc::decode_batch`]) in order. The receiver gets
    /// the array of their responses, in the order of the requests, once every request is answered;
    /// `None` when there was no request to answer; nothing if the session closes first.
    pub fn handle_batch(
        &self,
        members: Vec<jsonrpc::BatchMember>,
        context: &RequestContext,
    ) -> oneshot::Receiver<Option<String>> {
        let (tx, rx) = oneshot::channel();
        self.0.batch(members, context, batch::Deliver::Channel(tx));
        rx
    }

    /// Answers a message that did not decode: with its JSON-RPC error, or, for a tool call whose
    /// arguments nest too deep, with a tool failure (bad input for the tool, not a protocol fault).
    pub fn answer_undecodable(&self, e: &jsonrpc::DecodeError) {
        self.0.answer_undecodable(e);
    }

    /// Handles one decoded message. Quick requests are answered before this returns. A call into
    /// the application runs on the calling thread until it first has to wait, then as a task on
    /// the current tokio runtime: a handler that computes for long without awaiting holds up the
    /// caller (over stdio, the reader of stdin).
    pub fn handle(&self, msg: Incoming, context: &RequestContext) {
        self.0.handle(msg, context);
    }

    /// The protocol version negotiated by `initialize` (the newest until then).
    pub fn protocol_version(&self) -> &'static str {
        lock(&self.0.state).protocol_version
    }

    /// Whether `initialize` has been answered.
    pub fn is_initialized(&self) -> bool {
        self.0.is_initialized()
    }

    /// Who sent the first message the session handled (for a Streamable HTTP session, its
    /// `initialize`): a transport that binds a session to the caller that opened it compares
    /// each later request's principal with this one.
    pub fn opened_by(&self) -> Option<&Principal> {
        self.0.opened_by.get().and_then(Option::as_deref)
    }

    /// Answers a message the transport refused before decoding (an over-long line, say), with a
    /// null id since none could be read.
    pub fn reject(&self, error: &RpcError) {
        self.0.send(jsonrpc::error(None, error), Destination::Session);
    }

    /// For the end of input: fails the requests waiting on the client (no answer can come now),
    /// lets running calls finish within `grace`, then aborts the rest.
    pub async fn drain(&self, grace: std::time::Duration) {
        lock(&self.0.pending).clear();
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let idle = self.0.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if lock(&self.0.in_flight).is_empty() || tokio::time::timeout_at(deadline, idle).await.is_err() {
                break;
            }
        }
        self.0.close();
    }

    /// Aborts the calls still running and fails the requests still waiting on the client.
    pub fn close(&self) {
        self.0.close();
    }
}

impl<S: Send + Sync + 'static> std::fmt::Debug for Session<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("protocol_version", &self.protocol_version())
            .field("initialized", &self.is_initialized())
            .field("calls_in_flight", &lock(&self.0.in_flight).len())
            .finish_non_exhaustive()
    }
}

impl<S: Send + Sync + 'static> Drop for Session<S> {
    fn drop(&mut self) {
        // Every running call holds the core (through its scope), and the server's list of sessions
        // knows it: a handle that is the last of all has no call to stop, and the core's own drop
        // lets go of the rest (listeners, questions to the client, batches) as closing would.
        if Arc::get_mut(&mut self.0).is_none() {
            self.0.close();
        }
    }
}

impl<S> Drop for SessionCore<S> {
    fn drop(&mut self) {
        if let Some(key) = self.key {
            self.server.unregister(key);
        }
    }
}

/// The params of `notifications/cancelled`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct CancelledParams {
    #[serde(rename = "requestId")]
    request_id: Field<RequestId>,
}

impl<S: Send + Sync + 'static> SessionCore<S> {
    /// Hands a message to the outbox, or to the batch it answers.
    pub(crate) fn emit(&self, outgoing: Outgoing) {
        match self.batches.divert(outgoing) {
            Err(outgoing) => self.out.send(outgoing),
            Ok(Some((deliver, answer))) => self.deliver(deliver, answer),
            Ok(None) => {}
        }
    }

    /// Hands a message to the outbox as it is, past the batches: a batch's own answer.
    pub(crate) fn send_to_outbox(&self, outgoing: Outgoing) {
        self.out.send(outgoing);
    }

    pub(crate) fn send(&self, json: String, destination: Destination) {
        self.emit(Outgoing::message(json, destination));
    }

    pub(crate) fn handle(self: &Arc<Self>, msg: Incoming, context: &RequestContext) {
        self.opened_by.get_or_init(|| context.shared_principal().cloned());
        match msg {
            Incoming::Request { id, method, params } => self.request(id, &method, params, context),
            Incoming::Notification { method, params } => self.notification(&method, params),
            Incoming::Response { id, result } => self.response(id, result),
        }
    }

    /// The id of a message that did not decode which the session answers as a request (a tool
    /// call nested too deep, answered as a tool failure); `None` when its error is its answer.
    pub(crate) fn undecodable_is_answered_by_the_session<'e>(
        &self,
        e: &'e jsonrpc::DecodeError,
    ) -> Option<&'e RequestId> {
        e.id.as_ref().filter(|_| e.too_deep_arguments && self.is_initialized())
    }

    pub(crate) fn answer_undecodable(&self, e: &jsonrpc::DecodeError) {
        match self.undecodable_is_answered_by_the_session(e) {
            Some(id) => {
                let structured = lock(&self.state).has_structured_output();
                let result = tool_result::too_deep(&e.error.message, self.server.config().result_limit, structured);
                self.answer(id.clone(), Ok(result), &RequestEra::Handshake);
            }
            None => {
                let destination = e.id.clone().map_or(Destination::Session, Destination::Response);
                self.send(jsonrpc::error(e.id.as_ref(), &e.error), destination);
            }
        }
    }

    /// Sends a response; one to a 2026-07-28 request in that revision's result shape.
    pub(crate) fn answer<T: Serialize>(&self, id: RequestId, result: Result<T, RpcError>, era: &RequestEra) {
        let json = self.answer_text(&id, result, era);
        self.send(json, Destination::Response(id));
    }

    /// The response [`answer`](Self::answer) sends.
    pub(crate) fn answer_text<T: Serialize>(
        &self,
        id: &RequestId,
        result: Result<T, RpcError>,
        era: &RequestEra,
    ) -> String {
        match (&result, era) {
            (Ok(v), RequestEra::Handshake) => jsonrpc::result(id, v),
            (Ok(v), RequestEra::Stateless(meta)) => {
                let cache = self.server.config().cache;
                StatelessResult::complete(v, meta, self.server.result_meta(), cache).response(id, stateless::serialized)
            }
            (Err(e), _) => jsonrpc::error(Some(id), e),
        }
    }

    /// Answers a request with a JSON-RPC error.
    pub(crate) fn refuse(&self, id: RequestId, error: RpcError) {
        self.answer::<()>(id, Err(error), &RequestEra::Handshake);
    }

    pub(crate) fn close_stream(&self, id: &RequestId) {
        self.emit(Outgoing::CloseStream(id.clone()));
    }

    pub(crate) fn notify<T: Serialize>(&self, method: &str, params: &T, during: Option<&RequestId>) {
        let destination = during.cloned().map_or(Destination::Session, Destination::During);
        self.send(jsonrpc::notification(method, Some(params)), destination);
    }

    pub(crate) fn client_capabilities(&self) -> Value {
        lock(&self.state).client_capabilities.clone()
    }

    pub(crate) fn is_initialized(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }

    /// A `tools/call` read with its params as text, served in `era`.
    fn tool_call(self: &Arc<Self>, call: RawRequest<TextParams>, era: RequestEra, context: &RequestContext) {
        // A session of one call at a time (no key) is never found again by a transport, which is
        // what asks who opened a session; and it has nothing in flight when its call comes.
        let of_calls = self.key.is_none();
        if !of_calls {
            self.opened_by.get_or_init(|| context.shared_principal().cloned());
        }
        // A call that starts is refused for a duplicate id where it is registered (`spawn`), under
        // the lock it takes anyway. One that may be refused before it starts (it names no tool, or
        // is stateless and may need the tasks extension) is checked first, as any request is.
        let may_be_refused_first = !of_calls && (!matches!(call.params.0.name, Field::Given(_)) || era.is_stateless());
        if may_be_refused_first && self.refused_in_flight(&call.id) {
            return;
        }
        tools::call_with(methods::Request { session: self, id: call.id, params: None, era, context }, call.params.0);
    }

    /// Refuses a request whose id is one still in flight; true when it did.
    fn refused_in_flight(&self, id: &RequestId) -> bool {
        let in_flight = self.is_in_flight(&lock(&self.in_flight), id);
        if in_flight {
            self.refuse_duplicate(id);
        }
        in_flight
    }

    /// Whether `id` is that of a call in `in_flight` (the session's, locked) or of an open listen.
    pub(crate) fn is_in_flight(&self, in_flight: &RequestMap<InFlight<S>>, id: &RequestId) -> bool {
        in_flight.contains_key(id)
            || (self.has_listened.load(Ordering::Acquire) && lock(&self.listeners).contains_key(id))
    }

    /// Answers a request whose id is still in flight: not as a response to that id, which the
    /// client would take for the first request's.
    pub(crate) fn refuse_duplicate(&self, id: &RequestId) {
        let e = RpcError::invalid_request(format!("request id {id} is already in flight"));
        self.send(jsonrpc::error(Some(id), &e), Destination::Session);
    }

    fn request(self: &Arc<Self>, id: RequestId, method: &str, params: Option<Value>, context: &RequestContext) {
        if self.refused_in_flight(&id) {
            return;
        }
        // A session with a handshake speaks its revision; without one, each request says its own.
        let era = match self.is_initialized() {
            true => RequestEra::Handshake,
            false => match stateless::request_era(method, &params, &self.server.config().state_key) {
                Ok(era) => era,
                Err(e) => return self.refuse(id, e),
            },
        };
        methods::dispatch(methods::Request { session: self, id, params, era, context }, method);
    }

    fn notification(self: &Arc<Self>, method: &str, params: Option<Value>) {
        match method {
            "notifications/initialized" => handshake::initialized(self),
            "notifications/cancelled" => {
                if let Some(id) = params::read::<CancelledParams>(params).request_id.given() {
                    self.cancel(&id);
                }
            }
            // Other notifications (roots/list_changed, progress from the client, ...) need no answer.
            _ => {}
        }
    }

    fn response(&self, id: RequestId, result: Result<Value, RpcError>) {
        if let Some(waiter) = lock(&self.pending).remove(&id) {
            let _ = waiter.send(result);
        } else {
            tracing::debug!(%id, "a response to no pending request was ignored");
        }
    }

    fn cancel(&self, id: &RequestId) {
        if listen::cancel(self, id) {
            return;
        }
        let mut in_flight = lock(&self.in_flight);
        if let Some(call) = in_flight.remove(id) {
            self.emit(Outgoing::Cancelled(id.clone()));
            call.stop();
        }
        if in_flight.is_empty() {
            self.idle.notify_waiters();
        }
    }

    fn close(&self) {
        for (_, call) in std::mem::take(&mut *lock(&self.in_flight)) {
            call.stop();
        }
        lock(&self.listeners).clear();
        lock(&self.pending).clear();
        self.batches.clear();
    }

    /// Sends the client a request and waits for its answer.
    pub(crate) async fn request_client(
        &self,
        method: &str,
        params: Value,
        during: Option<&RequestId>,
    ) -> Result<Value, ClientRequestError> {
        let id = RequestId::Number(self.next_request.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let destination = during.cloned().map_or(Destination::Session, Destination::During);
        self.send(jsonrpc::request(&id, method, Some(&params)), destination);
        match rx.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(ClientRequestError::Rejected(e)),
            Err(_) => Err(ClientRequestError::Closed),
        }
    }

    /// Sends a log message when `level` is at or above the session's minimum.
    pub(crate) fn log(&self, level: LogLevel, logger: Option<&str>, data: Value, during: Option<&RequestId>) {
        if level >= lock(&self.state).log_level {
            methods::logging::send(self, level, logger, data, during);
        }
    }
}
