//! One MCP session, independent of the transport: messages go in through [`Session::handle`] and
//! come out, in order, through the [`Outbox`] the transport gives [`Session::new`].

mod batch;
mod catch_unwind;
mod lifecycle;
mod listen;
mod methods;
mod paginate;
pub(crate) mod rounds;
mod shape;
mod stateless;

use std::collections::{BTreeMap, HashSet};
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::context::{ClientRequestError, Cx};
use crate::jsonrpc::{self, Incoming, RequestId, RpcError};
use crate::logging::LogLevel;
use crate::server::Server;

pub use lifecycle::{HANDSHAKE_VERSIONS, LATEST_VERSION, STATELESS_VERSIONS, SUPPORTED_VERSIONS};
pub(crate) use stateless::RequestMeta;
pub use stateless::{CacheHint, CacheScope, PROTOCOL_VERSION as META_PROTOCOL_VERSION};

/// Turns a panic inside `fut` into an `Err` with its message.
pub(crate) fn catch_panic<F: Future>(fut: F) -> catch_unwind::CatchUnwind<F> {
    catch_unwind::CatchUnwind::new(fut)
}

/// Where an outgoing message belongs, for transports that keep one stream per request (HTTP).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// The response to this request: the last message of its stream.
    Reply(RequestId),
    /// A notification or request sent while this request runs.
    During(RequestId),
    /// A message that belongs to no request (list_changed, resources/updated, a stray error).
    Session,
    /// No message: the call asks its transport to close the stream carrying it now, so the client
    /// reconnects and resumes (SSE polling). Transports without streams ignore it.
    CloseStream(RequestId),
    /// No message: the client cancelled this request, which gets no response; a transport that
    /// holds a stream or a connection open for it lets go of it.
    Cancelled(RequestId),
}

/// One message for the client: its JSON text (no newline in it) and where it belongs; the text is
/// empty for [`Route::CloseStream`] and [`Route::Cancelled`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    pub json: String,
    pub route: Route,
}

/// Where a session's outgoing messages go. `send` is called in the order the messages are made,
/// from whichever thread makes them (the one that handed the session a request, or a runtime
/// worker running a call), so a transport can write a quick answer straight away without a hop
/// through a channel. It must not block for long: it runs inside calls.
pub trait Outbox: Send + Sync + 'static {
    fn send(&self, message: Outgoing);
}

/// A channel as an outbox, for a transport (or a test) that takes messages in a task of its own;
/// once the receiver is gone, messages are dropped: there is no one left to tell.
impl Outbox for mpsc::UnboundedSender<Outgoing> {
    fn send(&self, message: Outgoing) {
        let _ = mpsc::UnboundedSender::send(self, message);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No `initialize` yet: only `initialize` and `ping` are served.
    New,
    /// Initialized: everything is served.
    Initialized,
}

struct SessionState {
    phase: Phase,
    protocol_version: &'static str,
    client_capabilities: Value,
    log_level: LogLevel,
    subscriptions: HashSet<String>,
}

struct InFlight<S> {
    /// None while the call is first polled in place, before it becomes a task.
    abort: Option<tokio::task::AbortHandle>,
    scope: Arc<CallScope<S>>,
}

impl<S> InFlight<S> {
    /// Marks the call cancelled for code that checks, and drops it at its next await.
    fn stop(self) {
        self.scope.cancelled.store(true, Ordering::Release);
        if let Some(abort) = self.abort {
            abort.abort();
        }
    }
}

/// The session behind a handle; shared with the calls it runs.
pub(crate) struct SessionCore<S> {
    key: u64,
    server: Server<S>,
    out: Box<dyn Outbox>,
    state: Mutex<SessionState>,
    // Ordered maps: a handful of entries, keyed by small ids, need no hashing.
    in_flight: Mutex<BTreeMap<RequestId, InFlight<S>>>,
    /// Open `subscriptions/listen` requests (2026-07-28), which get no response until they end.
    listeners: Mutex<listen::Listeners>,
    pending: Mutex<BTreeMap<RequestId, oneshot::Sender<Result<Value, RpcError>>>>,
    /// JSON-RPC batches (2025-03-26) whose responses are being gathered.
    batches: batch::Batches,
    next_request: AtomicI64,
    /// Signalled when the last running call finishes.
    idle: tokio::sync::Notify,
}

/// What one running request knows of itself.
pub(crate) struct CallScope<S> {
    pub session: Arc<SessionCore<S>>,
    pub request_id: RequestId,
    /// For a 2026-07-28 request, what its `_meta` said; a 2025 request reads the session's.
    pub stateless: Option<Arc<RequestMeta>>,
    /// For a 2026-07-28 request that may ask the client, this round's answers and questions.
    pub round: Option<Arc<rounds::Round>>,
    /// Once the call runs as a task (the tasks extension), where its questions go.
    pub task: OnceLock<Arc<crate::tasks::TaskScope>>,
    /// Whether the call may become a task: the request declared the extension, the tool
    /// supports tasks.
    pub may_become_task: AtomicBool,
    /// Signalled to make the call a task: at once, or when its code asks (`Cx::start_task`).
    pub become_task: tokio::sync::Notify,
    /// A client capability a question needed and the request had not declared.
    pub missing_capability: Mutex<Option<&'static str>>,
    progress_token: Option<Value>,
    last_progress: Mutex<Option<f64>>,
    pub cancelled: AtomicBool,
}

/// How a request ends: with its result, or (2026-07-28) with questions for the client first, or
/// with the task that will compute its result.
pub(crate) enum Reply<T> {
    Complete(T),
    InputRequired(rounds::InputRequired),
    Task(T),
}

/// A session handle. Dropping it (or [`Session::close`]) aborts the calls still running.
pub struct Session<S: Send + Sync + 'static>(Arc<SessionCore<S>>);

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl<S: Send + Sync + 'static> Session<S> {
    /// A new session on `server`, its outgoing messages sent to `outbox`.
    pub fn new(server: &Server<S>, outbox: impl Outbox) -> Self {
        let core = Arc::new(SessionCore {
            key: server.next_session_key(),
            server: server.clone(),
            out: Box::new(outbox),
            state: Mutex::new(SessionState {
                phase: Phase::New,
                protocol_version: LATEST_VERSION,
                client_capabilities: json!({}),
                log_level: LogLevel::Info,
                subscriptions: HashSet::new(),
            }),
            in_flight: Mutex::new(BTreeMap::new()),
            listeners: Mutex::new(BTreeMap::new()),
            pending: Mutex::new(BTreeMap::new()),
            batches: batch::Batches::default(),
            next_request: AtomicI64::new(1),
            idle: tokio::sync::Notify::new(),
        });
        server.register(core.key, &core);
        Session(core)
    }

    /// Takes one raw message (one line, one POST body): decodes it and handles it. A message that
    /// does not decode is answered with the JSON-RPC error it deserves. A batch, in a session that
    /// speaks a revision with batches, is answered with one message: the array of its responses.
    pub fn handle_bytes(&self, bytes: &[u8]) {
        if jsonrpc::is_batch(bytes) && self.accepts_batches() {
            return match jsonrpc::decode_batch(bytes) {
                Ok(members) => self.0.batch(members, batch::Deliver::Outbox),
                Err(e) => self.answer_undecodable(&e),
            };
        }
        match jsonrpc::decode(bytes) {
            Ok(msg) => self.handle(msg),
            Err(e) => self.answer_undecodable(&e),
        }
    }

    /// Whether the session speaks a revision with JSON-RPC batches (2025-03-26, negotiated).
    pub fn accepts_batches(&self) -> bool {
        let state = lock(&self.0.state);
        state.phase == Phase::Initialized && lifecycle::has_batches(state.protocol_version)
    }

    /// Handles the members of a batch (see [`jsonrpc::decode_batch`]) in order. The receiver gets
    /// the array of their responses, in the order of the requests, once every request is answered;
    /// `None` when there was no request to answer; nothing if the session closes first.
    pub fn handle_batch(&self, members: Vec<jsonrpc::BatchMember>) -> oneshot::Receiver<Option<String>> {
        let (tx, rx) = oneshot::channel();
        self.0.batch(members, batch::Deliver::Channel(tx));
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
    pub fn handle(&self, msg: Incoming) {
        self.0.handle(msg);
    }

    /// The protocol version negotiated by `initialize` (the newest until then).
    pub fn protocol_version(&self) -> &'static str {
        lock(&self.0.state).protocol_version
    }

    /// Whether `initialize` has been answered.
    pub fn is_initialized(&self) -> bool {
        self.0.is_initialized()
    }

    /// Answers a message the transport refused before decoding (an over-long line, say), with a
    /// null id since none could be read.
    pub fn reject(&self, error: &RpcError) {
        self.0.send(jsonrpc::error(None, error), Route::Session);
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
        self.0.close();
    }
}

impl<S> Drop for SessionCore<S> {
    fn drop(&mut self) {
        self.server.unregister(self.key);
    }
}

impl<S: Send + Sync + 'static> SessionCore<S> {
    fn send(&self, json: String, route: Route) {
        match self.batches.divert(Outgoing { json, route }) {
            Err(msg) => self.out.send(msg),
            Ok(Some((deliver, answer))) => self.deliver(deliver, answer),
            Ok(None) => {}
        }
    }

    fn handle(self: &Arc<Self>, msg: Incoming) {
        match msg {
            Incoming::Request { id, method, params } => self.request(id, &method, params),
            Incoming::Notification { method, params } => self.notification(&method, params),
            Incoming::Response { id, result } => self.response(id, result),
        }
    }

    /// The id of a message that did not decode which the session answers as a request (a tool
    /// call nested too deep, answered as a tool failure); `None` when its error is its answer.
    fn undecodable_is_answered_by_the_session<'e>(&self, e: &'e jsonrpc::DecodeError) -> Option<&'e RequestId> {
        e.id.as_ref().filter(|_| e.too_deep_arguments && self.is_initialized())
    }

    fn answer_undecodable(&self, e: &jsonrpc::DecodeError) {
        match self.undecodable_is_answered_by_the_session(e) {
            Some(id) => {
                let structured = lifecycle::has_structured_output(lock(&self.state).protocol_version);
                let failure = crate::validate::invalid(vec![json!({
                    "path": "", "keyword": "maxDepth", "message": e.error.message,
                })]);
                let result = shape::tool_result(Err(failure), self.server.0.config.result_limit, structured, None);
                self.reply(id.clone(), Ok(result));
            }
            None => {
                let route = e.id.clone().map_or(Route::Session, Route::Reply);
                self.send(jsonrpc::error(e.id.as_ref(), &e.error), route);
            }
        }
    }

    fn reply<T: Serialize>(&self, id: RequestId, result: Result<T, RpcError>) {
        self.answer(id, result, None);
    }

    /// Sends a response; one to a 2026-07-28 request in that revision's result shape.
    fn answer<T: Serialize>(&self, id: RequestId, result: Result<T, RpcError>, stateless: Option<&RequestMeta>) {
        let server = &self.server.0;
        let json = match (&result, stateless) {
            (Ok(v), None) => jsonrpc::result(&id, v),
            (Ok(v), Some(meta)) => {
                jsonrpc::result(&id, &stateless::StatelessResult::complete(v, meta, &server.info, server.config.cache))
            }
            (Err(e), _) => jsonrpc::error(Some(&id), e),
        };
        self.send(json, Route::Reply(id));
    }

    /// Answers a request with a JSON-RPC error.
    fn refuse(&self, id: RequestId, error: RpcError) {
        self.reply::<()>(id, Err(error));
    }

    pub(crate) fn close_stream(&self, id: &RequestId) {
        self.send(String::new(), Route::CloseStream(id.clone()));
    }

    pub(crate) fn notify<T: Serialize>(&self, method: &str, params: &T, during: Option<&RequestId>) {
        let route = during.cloned().map_or(Route::Session, Route::During);
        self.send(jsonrpc::notification(method, Some(params)), route);
    }

    /// Sends a log message when `level` is at or above the session's minimum.
    pub(crate) fn log(&self, level: LogLevel, logger: Option<&str>, data: Value, during: Option<&RequestId>) {
        if level >= lock(&self.state).log_level {
            self.send_log(level, logger, data, during);
        }
    }

    /// Sends a log message, its level already checked.
    pub(crate) fn send_log(&self, level: LogLevel, logger: Option<&str>, data: Value, during: Option<&RequestId>) {
        let mut params = serde_json::Map::new();
        params.insert("level".into(), json!(level));
        if let Some(logger) = logger {
            params.insert("logger".into(), json!(logger));
        }
        params.insert("data".into(), data);
        self.notify("notifications/message", &params, during);
    }

    pub(crate) fn client_capabilities(&self) -> Value {
        lock(&self.state).client_capabilities.clone()
    }

    fn is_initialized(&self) -> bool {
        lock(&self.state).phase == Phase::Initialized
    }

    pub(crate) fn tools_changed(&self) {
        if self.is_initialized() {
            self.notify("notifications/tools/list_changed", &json!({}), None);
        }
        listen::notify(self, listen::wants_tools, "notifications/tools/list_changed", json!({}));
    }

    pub(crate) fn resource_updated(&self, uri: &str) {
        if lock(&self.state).subscriptions.contains(uri) {
            self.notify("notifications/resources/updated", &json!({ "uri": uri }), None);
        }
        listen::notify(self, listen::watches(uri), "notifications/resources/updated", json!({ "uri": uri }));
    }

    /// Whether an open listen of this session watches the task.
    pub(crate) fn watches_task(&self, id: &str) -> bool {
        lock(&self.listeners).values().any(listen::watches_task(id))
    }

    /// Tells the listens that watch the task its state now.
    pub(crate) fn task_changed(&self, id: &str, detailed: &Value) {
        listen::notify(self, listen::watches_task(id), "notifications/tasks", detailed.clone());
    }

    fn request(self: &Arc<Self>, id: RequestId, method: &str, params: Option<Value>) {
        if lock(&self.in_flight).contains_key(&id) || lock(&self.listeners).contains_key(&id) {
            let e = RpcError::invalid_request(format!("request id {id} is already in flight"));
            return self.send(jsonrpc::error(Some(&id), &e), Route::Session);
        }
        // A session with a handshake speaks its revision; without one, each request says its own.
        let stateless = match self.is_initialized() {
            true => None,
            false => match stateless::era(method, &params, &self.server.0.config.state_key) {
                Ok(stateless::Era::Handshake) => None,
                Ok(stateless::Era::Stateless(meta)) => Some(Arc::new(meta)),
                Err(e) => return self.refuse(id, e),
            },
        };
        methods::dispatch(self, id, method, params, stateless);
    }

    fn notification(self: &Arc<Self>, method: &str, params: Option<Value>) {
        match method {
            "notifications/initialized" => lifecycle::initialized(self),
            "notifications/cancelled" => {
                if let Some(id) = params.as_ref().and_then(|p| p.get("requestId")).cloned()
                    && let Some(id) = RequestId::from_json(id)
                {
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

    /// Runs `work` in place until it first has to wait, then as a task; its answer (how the
    /// request ends) is sent unless the request is cancelled first.
    pub(crate) fn spawn<F, Fut, T>(
        self: &Arc<Self>,
        id: RequestId,
        params: &Option<Value>,
        stateless: Option<Arc<RequestMeta>>,
        work: F,
    ) where
        F: FnOnce(Cx<S>) -> Fut,
        Fut: Future<Output = Result<Reply<T>, RpcError>> + Send + 'static,
        T: Serialize + Send + 'static,
    {
        // Not `Value::pointer`, which allocates a string per token on every call.
        let progress_token = params.as_ref().and_then(|p| p.get("_meta")?.get("progressToken")).cloned();
        let round = stateless.as_ref().and_then(|m| m.input.clone()).map(|input| Arc::new(rounds::Round::new(input)));
        let scope = Arc::new(CallScope {
            session: Arc::clone(self),
            request_id: id.clone(),
            stateless,
            round: round.clone(),
            task: OnceLock::new(),
            may_become_task: AtomicBool::new(false),
            become_task: tokio::sync::Notify::new(),
            missing_capability: Mutex::new(None),
            progress_token,
            last_progress: Mutex::new(None),
            cancelled: AtomicBool::new(false),
        });
        let work = work(Cx::in_scope(&self.server, Arc::clone(&scope)));
        let key = self.server.0.config.state_key.clone();
        // A round that asks what it has no answer for stops there, answered `input_required`.
        let work = async move {
            let Some(round) = round else { return work.await };
            tokio::select! {
                biased;
                result = work => result,
                () = round.stuck.notified() => Ok(Reply::InputRequired(round.input_required(&key))),
            }
        };
        let mut fut = catch_panic(work);
        lock(&self.in_flight).insert(id.clone(), InFlight { abort: None, scope });
        // Most calls finish without waiting on anything: answer those at once, sparing a task.
        let mut noop = std::task::Context::from_waker(std::task::Waker::noop());
        if let std::task::Poll::Ready(result) = std::pin::Pin::new(&mut fut).poll(&mut noop) {
            return self.finish(id, result.unwrap_or_else(panicked));
        }
        let core = Arc::clone(self);
        let task_id = id.clone();
        // Under the lock, a cancel cannot slip in between this check and the registration, and
        // the task cannot finish before it is registered.
        let mut in_flight = lock(&self.in_flight);
        let Some(call) = in_flight.get_mut(&id) else {
            // Cancelled (or the session closed) while it first ran: never started as a task.
            return;
        };
        let handle = tokio::spawn(async move {
            let result = fut.await.unwrap_or_else(panicked);
            core.finish(task_id, result);
        });
        call.abort = Some(handle.abort_handle());
    }

    fn finish<T: Serialize>(&self, id: RequestId, result: Result<Reply<T>, RpcError>) {
        let mut in_flight = lock(&self.in_flight);
        if let Some(call) = in_flight.remove(&id) {
            // Sent under the lock, so no progress for this request can follow the response.
            let stateless = call.scope.stateless.as_deref();
            match result {
                Ok(Reply::InputRequired(input)) => {
                    let result = stateless::StatelessResult::input_required(input, &self.server.0.info);
                    self.send(jsonrpc::result(&id, &result), Route::Reply(id));
                }
                Ok(Reply::Task(task)) => {
                    let result = stateless::StatelessResult::task(task, &self.server.0.info);
                    self.send(jsonrpc::result(&id, &result), Route::Reply(id));
                }
                Ok(Reply::Complete(value)) => self.answer(id, Ok(value), stateless),
                Err(e) => self.answer::<()>(id, Err(e), stateless),
            }
        }
        if in_flight.is_empty() {
            self.idle.notify_waiters();
        }
    }

    fn cancel(&self, id: &RequestId) {
        if listen::cancel(self, id) {
            return;
        }
        let mut in_flight = lock(&self.in_flight);
        if let Some(call) = in_flight.remove(id) {
            self.send(String::new(), Route::Cancelled(id.clone()));
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

    pub(crate) async fn request_client(
        &self,
        method: &str,
        params: Value,
        during: Option<&RequestId>,
    ) -> Result<Value, ClientRequestError> {
        let id = RequestId::Number(self.next_request.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let route = during.cloned().map_or(Route::Session, Route::During);
        self.send(jsonrpc::request(&id, method, Some(&params)), route);
        match rx.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(ClientRequestError::Rejected(e)),
            Err(_) => Err(ClientRequestError::Closed),
        }
    }
}

fn panicked<T>(message: String) -> Result<T, RpcError> {
    Err(RpcError::internal(format!("the handler panicked: {message}")))
}

impl<S: Send + Sync + 'static> CallScope<S> {
    pub(crate) fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else { return };
        let mut last = lock(&self.last_progress);
        if last.is_some_and(|l| progress <= l) || !progress.is_finite() {
            return;
        }
        let in_flight = lock(&self.session.in_flight);
        if !in_flight.contains_key(&self.request_id) {
            return;
        }
        *last = Some(progress);
        let mut params = serde_json::Map::new();
        params.insert("progressToken".into(), token.clone());
        params.insert("progress".into(), crate::numbers::number(progress));
        if let Some(total) = total {
            params.insert("total".into(), crate::numbers::number(total));
        }
        if let Some(message) = message {
            params.insert("message".into(), json!(message));
        }
        self.session.notify("notifications/progress", &params, Some(&self.request_id));
        drop(in_flight);
    }
}
