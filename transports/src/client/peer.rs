//! The client's side of one connection: the requests in flight by id, and where each message the
//! server sends goes. A response goes to its request; progress to the request whose token it
//! names; a notification of a `subscriptions/listen` to that listen; a log or a request to the
//! client to the request whose HTTP stream carried it, or else (stdio, the GET stream) to the one
//! request in flight that could have caused it, or else to the client's handlers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use serde_json::{Value, json};
use tokio::runtime::Handle;
use tokio::sync::{mpsc, watch};
use tooltable::transport::jsonrpc::{self, Incoming, RequestId, RpcError};

use super::{ClientError, Era, Event, Notification, Options, http, stdio};

/// How the messages travel.
pub(crate) enum Link {
    Stdio(stdio::Process),
    Http(http::Endpoint),
}

/// What a request in flight can be sent.
#[derive(Debug)]
pub(crate) enum Arrival {
    Response {
        id: RequestId,
        result: Result<Value, RpcError>,
    },
    /// Its progress or a log message, as the caller hears it.
    Heard(Event),
    /// A request of the server to the client, made while this request runs.
    Request {
        id: RequestId,
        method: String,
        params: Value,
    },
    /// A notification of a `subscriptions/listen`.
    Notification(Notification),
    /// The request will get no answer.
    Lost {
        id: RequestId,
        error: ClientError,
    },
}

/// What kind of request is in flight, for routing what names no request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A request whose handling may ask the client (`tools/call`, `prompts/get`, ...).
    Asking,
    Plain,
    /// A `subscriptions/listen`.
    Listen,
}

/// The stateless revision this client speaks.
pub(crate) const STATELESS_VERSION: &str = tooltable::transport::STATELESS_VERSIONS[0];

/// The requests that may ask the client something while they run.
pub(crate) const ASKING: [&str; 4] = ["tools/call", "prompts/get", "resources/read", "completion/complete"];

struct Pending {
    arrivals: mpsc::UnboundedSender<Arrival>,
    kind: Kind,
    /// The task reading the request's HTTP answer: dropping it closes the stream.
    stream: Option<super::Task>,
}

/// The era and revision the connection speaks, and what the server said of itself.
#[derive(Debug, Clone)]
pub(crate) struct Negotiated {
    pub era: Era,
    pub version: String,
    /// The `initialize` or `server/discover` result.
    pub server: Value,
}

pub(crate) struct Peer {
    pub link: Link,
    pub options: Options,
    /// Where the connection's tasks run.
    pub runtime: Handle,
    pub negotiated: OnceLock<Negotiated>,
    /// Requests carry the 2026-07-28 `_meta` before the era is settled (the probe).
    probing: AtomicBool,
    pending: Mutex<HashMap<RequestId, Pending>>,
    next_id: AtomicI64,
    /// Why the connection ended, once it has.
    closed: watch::Sender<Option<String>>,
    followers: Mutex<Vec<mpsc::UnboundedSender<Notification>>>,
    /// The connection's own tasks (readers, writers, the GET stream), stopped when it closes.
    tasks: Mutex<Vec<super::Task>>,
    /// `x-mcp-header` arguments of the tools listed so far (Streamable HTTP, 2026-07-28).
    pub param_headers: Mutex<HashMap<String, Vec<http::ParamHeader>>>,
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer").field("server", &self.label()).finish_non_exhaustive()
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Peer {
    pub(crate) fn new(link: Link, options: Options, runtime: Handle) -> Arc<Peer> {
        Arc::new(Peer {
            link,
            options,
            runtime,
            negotiated: OnceLock::new(),
            probing: AtomicBool::new(false),
            pending: Mutex::default(),
            next_id: AtomicI64::new(1),
            closed: watch::Sender::new(None),
            followers: Mutex::default(),
            tasks: Mutex::default(),
            param_headers: Mutex::default(),
        })
    }

    pub(crate) fn era(&self) -> Option<Era> {
        self.negotiated.get().map(|n| n.era)
    }

    /// Whether requests carry the 2026-07-28 `_meta`: once settled, or while probing for it.
    pub(crate) fn speaks_stateless(&self) -> bool {
        match self.era() {
            Some(era) => era == Era::Stateless,
            None => self.probing.load(Ordering::Acquire),
        }
    }

    /// Sends the requests of the probe with the 2026-07-28 `_meta`, or stops.
    pub(crate) fn probe(&self, stateless: bool) {
        self.probing.store(stateless, Ordering::Release);
        if let Link::Http(endpoint) = &self.link {
            endpoint.speak(stateless, stateless.then_some(STATELESS_VERSION));
        }
    }

    /// The revision a 2026-07-28 request names.
    pub(crate) fn stateless_version(&self) -> &str {
        self.negotiated.get().map_or(STATELESS_VERSION, |n| n.version.as_str())
    }

    pub(crate) fn next_id(&self) -> RequestId {
        RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Keeps a task of the connection's, stopped when it closes.
    pub(crate) fn keep(&self, task: super::Task) {
        match self.closed.borrow().is_some() {
            true => drop(task),
            false => lock(&self.tasks).push(task),
        }
    }

    /// Records a request before it is sent; refused once the connection has ended.
    pub(crate) fn register(
        &self,
        id: &RequestId,
        kind: Kind,
        arrivals: mpsc::UnboundedSender<Arrival>,
    ) -> Result<(), ClientError> {
        if let Some(reason) = self.closed.borrow().clone() {
            return Err(ClientError::Closed(reason));
        }
        lock(&self.pending).insert(id.clone(), Pending { arrivals, kind, stream: None });
        Ok(())
    }

    /// The task that reads a request's answer, stopped when the request is forgotten.
    pub(crate) fn set_stream(&self, id: &RequestId, task: super::Task) {
        if let Some(p) = lock(&self.pending).get_mut(id) {
            p.stream = Some(task);
        }
    }

    /// Stops waiting for a request (answered, cancelled, timed out); its stream closes.
    pub(crate) fn forget(&self, id: &RequestId) -> bool {
        let removed = lock(&self.pending).remove(id);
        removed.is_some()
    }

    /// The request will get no answer.
    pub(crate) fn lost(&self, id: &RequestId, error: ClientError) {
        if let Some(p) = lock(&self.pending).remove(id) {
            let _ = p.arrivals.send(Arrival::Lost { id: id.clone(), error });
        }
    }

    /// Ends the connection: every request in flight is lost, followers hear no more.
    pub(crate) fn close(&self, reason: impl Into<String>) {
        let reason = reason.into();
        let first = self.closed.send_if_modified(|closed| match closed {
            Some(_) => false,
            None => {
                *closed = Some(reason.clone());
                true
            }
        });
        if !first {
            return;
        }
        tracing::debug!("MCP connection to {} ended: {reason}", self.label());
        let pending: Vec<_> = lock(&self.pending).drain().collect();
        for (id, p) in pending {
            let _ = p.arrivals.send(Arrival::Lost { id, error: ClientError::Closed(reason.clone()) });
        }
        lock(&self.followers).clear();
        let tasks = std::mem::take(&mut *lock(&self.tasks));
        drop(tasks);
    }

    pub(crate) fn closed_reason(&self) -> Option<String> {
        self.closed.borrow().clone()
    }

    pub(crate) fn watch_closed(&self) -> watch::Receiver<Option<String>> {
        self.closed.subscribe()
    }

    pub(crate) fn follow(&self) -> mpsc::UnboundedReceiver<Notification> {
        let (tx, rx) = mpsc::unbounded_channel();
        if self.closed.borrow().is_none() {
            lock(&self.followers).push(tx);
        }
        rx
    }

    /// The command or URL, as messages name the server.
    pub(crate) fn label(&self) -> String {
        match &self.link {
            Link::Stdio(p) => p.label.clone(),
            Link::Http(e) => e.url.clone(),
        }
    }

    /// Sends a notification or a response, not waiting for anything.
    pub(crate) fn post(self: &Arc<Self>, message: Value) {
        match &self.link {
            Link::Stdio(p) => p.send(message.to_string()),
            Link::Http(e) => e.post(self, message),
        }
    }

    /// Sends a request already registered.
    pub(crate) fn send_request(self: &Arc<Self>, id: &RequestId, message: Value) {
        match &self.link {
            Link::Stdio(p) => p.send(message.to_string()),
            Link::Http(e) => {
                let task = e.request(self, id.clone(), message);
                self.set_stream(id, task);
            }
        }
    }

    /// Tells the server a request is cancelled: `notifications/cancelled`, except over
    /// Streamable HTTP under 2026-07-28, where closing the request's stream says it.
    pub(crate) fn cancel(self: &Arc<Self>, id: &RequestId, reason: &str) {
        let known = self.forget(id);
        let stateless_http = matches!(self.link, Link::Http(_)) && self.era() == Some(Era::Stateless);
        if known && !stateless_http && self.closed.borrow().is_none() {
            let params = json!({ "requestId": id, "reason": reason });
            self.post(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": params }));
        }
    }

    /// Routes one message from the server. `carrier` is the request whose HTTP stream carried it.
    /// Returns whether it was the response to `carrier`.
    pub(crate) fn dispatch(self: &Arc<Self>, bytes: &[u8], carrier: Option<&RequestId>) -> bool {
        let message = match jsonrpc::decode(bytes) {
            Ok(message) => message,
            Err(e) => {
                // Not ours to answer (it is no request of the server's we could name).
                tracing::debug!("{}: skipped a message that is no JSON-RPC: {}", self.label(), e.error.message);
                return false;
            }
        };
        match message {
            Incoming::Response { id, result } => {
                let answered = carrier == Some(&id);
                if let Ok(list) = &result {
                    self.note_tools(list);
                }
                if let Some(p) = lock(&self.pending).remove(&id) {
                    let _ = p.arrivals.send(Arrival::Response { id, result });
                }
                answered
            }
            Incoming::Notification { method, params } => {
                self.notification(method, params.unwrap_or(Value::Null), carrier);
                false
            }
            Incoming::Request { id, method, params } => {
                self.server_request(id, method, params.unwrap_or(Value::Null), carrier);
                false
            }
        }
    }

    fn notification(self: &Arc<Self>, method: String, params: Value, carrier: Option<&RequestId>) {
        let pending = lock(&self.pending);
        let send = |id: &RequestId, arrival: Arrival| pending.get(id).map(|p| p.arrivals.send(arrival).is_ok());
        if let Some(sub) = params.pointer("/_meta/io.modelcontextprotocol~1subscriptionId").cloned() {
            if let Some(id) = RequestId::from_json(sub) {
                send(&id, Arrival::Notification(Notification { method, params }));
            }
            return;
        }
        match method.as_str() {
            "notifications/progress" => {
                let token = params.get("progressToken").cloned().and_then(RequestId::from_json);
                if let (Some(token), Some(progress)) = (token, super::progress(&params)) {
                    send(&token, Arrival::Heard(progress));
                }
            }
            "notifications/message" => {
                let log = super::log(&params);
                let target = carrier.filter(|c| pending.contains_key(c)).cloned().or_else(|| {
                    let mut calls = pending.iter().filter(|(_, p)| p.kind != Kind::Listen);
                    match (calls.next(), calls.next()) {
                        (Some((id, _)), None) => Some(id.clone()),
                        _ => None,
                    }
                });
                match target {
                    Some(id) => {
                        send(&id, Arrival::Heard(log));
                    }
                    None => {
                        drop(pending);
                        self.tell(Notification { method, params });
                    }
                }
            }
            "notifications/cancelled" => {
                // The server ends a listen of ours (2026-07-28), or gives up a request it made.
                if let Some(id) = params.get("requestId").cloned().and_then(RequestId::from_json)
                    && pending.get(&id).is_some_and(|p| p.kind == Kind::Listen)
                {
                    drop(pending);
                    self.lost(&id, ClientError::Closed("the server ended the subscription".into()));
                }
            }
            _ => {
                drop(pending);
                self.tell(Notification { method, params });
            }
        }
    }

    /// A notification that belongs to no request: to the followers and the client's handler.
    fn tell(&self, notification: Notification) {
        lock(&self.followers).retain(|f| f.send(notification.clone()).is_ok());
        if let Some(handler) = &self.options.on_notification {
            handler(notification);
        }
    }

    fn server_request(self: &Arc<Self>, id: RequestId, method: String, params: Value, carrier: Option<&RequestId>) {
        if method == "ping" {
            return self.post(json!({ "jsonrpc": "2.0", "id": id, "result": {} }));
        }
        let pending = lock(&self.pending);
        let asking = |id: &RequestId| pending.get(id).is_some_and(|p| p.kind == Kind::Asking);
        let target = carrier.filter(|c| asking(c)).cloned().or_else(|| {
            let mut asking = pending.iter().filter(|(_, p)| p.kind == Kind::Asking);
            match (asking.next(), asking.next()) {
                (Some((id, _)), None) => Some(id.clone()),
                _ => None,
            }
        });
        if let Some(target) = target
            && let Some(p) = pending.get(&target)
        {
            let _ = p.arrivals.send(Arrival::Request { id, method, params });
            return;
        }
        drop(pending);
        let peer = Arc::clone(self);
        let handler = self.options.on_request.clone();
        self.runtime.spawn(async move {
            let answer = match handler {
                Some(handler) => handler(method, params).await,
                None => Err(RpcError::method_not_found(&method)),
            };
            peer.post(response(&id, answer));
        });
    }

    /// Remembers the `x-mcp-header` arguments of listed tools, which HTTP requests mirror.
    fn note_tools(&self, result: &Value) {
        if !matches!(self.link, Link::Http(_)) {
            return;
        }
        let Some(tools) = result.get("tools").and_then(Value::as_array) else { return };
        let mut headers = lock(&self.param_headers);
        for tool in tools {
            if let (Some(name), Some(schema)) = (tool.get("name").and_then(Value::as_str), tool.get("inputSchema"))
                && let Ok(marked) = http::param_headers(schema)
            {
                headers.insert(name.to_owned(), marked);
            }
        }
    }
}

/// The JSON-RPC response to a request of the server's.
pub(crate) fn response(id: &RequestId, answer: Result<Value, RpcError>) -> Value {
    match answer {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err(error) => json!({ "jsonrpc": "2.0", "id": id, "error": error }),
    }
}
