//! `Cx`, an operation's way to the world: the server's state, progress, logging, cancellation,
//! requests to the client, and resource and tool-list changes.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::jsonrpc::{RequestId, RpcError};
use crate::logging::LogLevel;
use crate::server::Server;
use crate::session::{CallScope, lock, rounds};

/// The context of one call. Cheap to clone; `Deref`s to the server's state.
pub struct Cx<S> {
    server: Server<S>,
    scope: Option<Arc<CallScope<S>>>,
}

impl<S> Clone for Cx<S> {
    fn clone(&self) -> Self {
        Cx { server: self.server.clone(), scope: self.scope.clone() }
    }
}

impl<S> std::fmt::Debug for Cx<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cx")
            .field("server", &self.server.0.info.name)
            .field("request_id", &self.scope.as_ref().map(|s| &s.request_id))
            .field("stateless", &self.scope.as_ref().is_some_and(|s| s.stateless.is_some()))
            .finish_non_exhaustive()
    }
}

impl<S> std::ops::Deref for Cx<S> {
    type Target = S;
    fn deref(&self) -> &S {
        &self.server.0.state
    }
}

/// Why a request to the client gave no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientRequestError {
    /// The client did not declare the capability this request needs.
    NotSupported { capability: &'static str },
    /// The call runs outside a session (the `call` command, REST), so there is no client to ask.
    NoSession,
    /// The client answered with a JSON-RPC error.
    Rejected(RpcError),
    /// The session ended before the client answered.
    Closed,
}

impl std::fmt::Display for ClientRequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientRequestError::NotSupported { capability } => {
                write!(f, "the client did not declare the `{capability}` capability")
            }
            ClientRequestError::NoSession => f.write_str("this call has no client session to ask"),
            ClientRequestError::Rejected(e) => write!(f, "the client refused: {e}"),
            ClientRequestError::Closed => f.write_str("the session closed before the client answered"),
        }
    }
}

impl std::error::Error for ClientRequestError {}

impl<S: Send + Sync + 'static> Cx<S> {
    /// A context with no session: progress and logs go nowhere, the client cannot be asked.
    pub fn detached(server: &Server<S>) -> Self {
        Cx { server: server.clone(), scope: None }
    }

    pub(crate) fn in_scope(server: &Server<S>, scope: Arc<CallScope<S>>) -> Self {
        Cx { server: server.clone(), scope: Some(scope) }
    }

    pub(crate) fn scope(&self) -> Option<&Arc<CallScope<S>>> {
        self.scope.as_ref()
    }

    /// The server's state.
    pub fn state(&self) -> &S {
        &self.server.0.state
    }

    /// The server, to add or remove tools or announce resource updates.
    pub fn server(&self) -> &Server<S> {
        &self.server
    }

    /// The id of the request this call answers, when it came through a session.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.scope.as_deref().map(|s| &s.request_id)
    }

    /// Reports progress when the request carried a progressToken. Values that do not increase
    /// are dropped, and nothing is sent once the response has gone.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(scope) = &self.scope {
            scope.progress(progress, total, message);
        }
    }

    /// Sends `notifications/message` when `level` is at or above the minimum: the session's
    /// (`logging/setLevel`), or for a 2026-07-28 request the one its `_meta` asked for, without
    /// which nothing is sent.
    pub fn log(&self, level: LogLevel, data: impl Serialize) {
        let Some(scope) = &self.scope else { return };
        let logger = Some(self.server.0.info.name.as_str());
        match &scope.stateless {
            // A task's request has been answered: there is no stream left to log on.
            _ if scope.task.get().is_some() => {}
            Some(meta) if meta.log_level.is_none_or(|min| level < min) => {}
            Some(_) => scope.session.send_log(level, logger, to_value(data), Some(&scope.request_id)),
            None => scope.session.log(level, logger, to_value(data), Some(&scope.request_id)),
        }
    }

    /// Makes the rest of this call a task, when it may become one (a 2026-07-28 request that
    /// declares the tasks extension, to a tool declared `task` and `deferred_task`): the request
    /// is answered with the task at once, and this returns `true` once the code runs on as the
    /// task. Otherwise (or for a tool whose calls are tasks from the start, which are already)
    /// the call goes on as it was, and it returns whether it runs as a task. Questions asked
    /// before are asked in rounds; after, they park the task until `tasks/update` answers them.
    pub async fn start_task(&self) -> bool {
        let Some(scope) = &self.scope else { return false };
        if scope.task.get().is_none() && scope.may_become_task.load(std::sync::atomic::Ordering::Acquire) {
            scope.become_task.notify_one();
            // The session moves this future into the task, which binds the scope before its
            // first poll; until then it waits here.
            std::future::poll_fn(|_| match scope.task.get() {
                Some(_) => std::task::Poll::Ready(()),
                None => std::task::Poll::Pending,
            })
            .await;
        }
        scope.task.get().is_some()
    }

    /// Whether the client cancelled this call. A cancelled call is also dropped at its next await.
    pub fn is_cancelled(&self) -> bool {
        let cancelled = |flag: &std::sync::atomic::AtomicBool| flag.load(std::sync::atomic::Ordering::Acquire);
        self.scope
            .as_ref()
            .is_some_and(|s| cancelled(&s.cancelled) || s.task.get().is_some_and(|t| cancelled(&t.cancelled)))
    }

    /// Asks the transport to close the stream carrying this call now; the client reconnects and
    /// receives the rest of the call's messages there (HTTP SSE polling, SEP-1699). Over stdio,
    /// which has no streams, it does nothing.
    /// Under revision 2026-07-28 streams are not resumable and a closed stream cancels its
    /// request, so it does nothing there either.
    pub fn close_stream(&self) {
        if let Some(scope) = self.scope.as_ref().filter(|s| s.stateless.is_none()) {
            scope.session.close_stream(&scope.request_id);
        }
    }

    /// Sends a request to the client and waits for its answer. Prefer the typed questions below,
    /// which check the client's capabilities first.
    pub async fn request_client(&self, method: &str, params: Value) -> Result<Value, ClientRequestError> {
        let scope = self.scope.as_ref().ok_or(ClientRequestError::NoSession)?;
        if scope.task.get().is_some() || scope.round.is_some() {
            return self.ask_one(InputRequest::raw(method, params)).await;
        }
        match scope.stateless {
            Some(_) => Err(ClientRequestError::NoSession),
            None => scope.session.request_client(method, params, Some(&scope.request_id)).await,
        }
    }

    /// Asks the client several questions at once and gives their answers by key. Under the
    /// 2025 revisions each is a request to the client; under 2026-07-28 the questions without an
    /// answer yet end this round of the request with `input_required`, and the client's retry
    /// runs the operation again, this time with the answers (write the code before a question
    /// so that running it again does no harm).
    pub async fn ask(&self, questions: Vec<(String, InputRequest)>) -> Result<Map<String, Value>, ClientRequestError> {
        let scope = self.scope.as_ref().ok_or(ClientRequestError::NoSession)?;
        let capabilities = self.client_capabilities();
        if let Some(q) = questions.iter().map(|(_, q)| q).find(|q| !q.declared(&capabilities)) {
            *lock(&scope.missing_capability) = Some(q.capability);
            return Err(ClientRequestError::NotSupported { capability: q.capability });
        }
        if let Some(task) = scope.task.get() {
            let asked = questions.iter().map(|(k, q)| (k.clone(), q.question()));
            return task.ask(asked.collect()).await;
        }
        match &scope.round {
            Some(round) => {
                match round.answers(&questions) {
                    Some(answers) => Ok(answers),
                    // The call is stopped and answered `input_required` by the session.
                    None => std::future::pending().await,
                }
            }
            None if scope.stateless.is_some() => Err(ClientRequestError::NoSession),
            None => {
                let mut answers = Map::new();
                for (key, q) in questions {
                    let answer =
                        scope.session.request_client(&q.method, q.params(false), Some(&scope.request_id)).await?;
                    answers.insert(key, answer);
                }
                Ok(answers)
            }
        }
    }

    async fn ask_one(&self, question: InputRequest) -> Result<Value, ClientRequestError> {
        let scope = self.scope.as_deref();
        let key = match (scope.and_then(|s| s.task.get()), scope.and_then(|s| s.round.as_ref())) {
            (Some(task), _) => task.next_key(),
            (None, Some(round)) => round.next_key(),
            (None, None) => String::from("input"),
        };
        let mut answers = self.ask(vec![(key.clone(), question)]).await?;
        Ok(answers.remove(&key).unwrap_or(Value::Null))
    }

    /// `sampling/createMessage`: asks the client's model. Needs the client's `sampling` capability,
    /// and `sampling.tools` when the request offers the model tools (`tools` or `toolChoice`).
    pub async fn create_message(&self, params: Value) -> Result<Value, ClientRequestError> {
        self.ask_one(InputRequest::create_message(params)).await
    }

    /// `elicitation/create` in form mode: asks the user to fill in `requested_schema`. Needs
    /// `elicitation.form`, or an `elicitation` that names no mode (which means form).
    pub async fn elicit_form(&self, message: &str, requested_schema: Value) -> Result<Value, ClientRequestError> {
        self.ask_one(InputRequest::elicit_form(message, requested_schema)).await
    }

    /// `elicitation/create` in URL mode: sends the user to `url`. Needs `elicitation.url`.
    pub async fn elicit_url(
        &self,
        message: &str,
        url: &str,
        elicitation_id: &str,
    ) -> Result<Value, ClientRequestError> {
        self.ask_one(InputRequest::elicit_url(message, url, elicitation_id)).await
    }

    /// `roots/list`: the client's roots. Needs the client's `roots` capability.
    pub async fn list_roots(&self) -> Result<Value, ClientRequestError> {
        self.ask_one(InputRequest::list_roots()).await
    }

    /// The capability a question of this call needed and the client had not declared.
    pub(crate) fn missing_capability(&self) -> Option<&'static str> {
        self.scope.as_ref().and_then(|s| *lock(&s.missing_capability))
    }

    /// `notifications/elicitation/complete`: the URL-mode interaction finished (2025-11-25; the
    /// stateless revision has no such notification: its client learns it by retrying).
    pub fn elicitation_complete(&self, elicitation_id: &str) {
        if let Some(scope) = self.scope.as_ref().filter(|s| s.stateless.is_none()) {
            let params = json!({ "elicitationId": elicitation_id });
            scope.session.notify("notifications/elicitation/complete", &params, None);
        }
    }

    /// The capabilities the client declared: in the handshake, or in a 2026-07-28 request's `_meta`.
    pub fn client_capabilities(&self) -> Value {
        match &self.scope {
            Some(scope) => match &scope.stateless {
                Some(meta) => meta.client_capabilities.clone(),
                None => scope.session.client_capabilities(),
            },
            None => json!({}),
        }
    }
}

/// One question an operation asks the client: elicitation, sampling or its roots.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequest {
    method: Cow<'static, str>,
    params: Value,
    /// The client capability it needs, written as a path (`elicitation.form`), or "" for none.
    capability: &'static str,
}

impl InputRequest {
    /// `elicitation/create` in form mode. `mode` is left out: form is the default, and revisions
    /// before 2025-11-25 do not know the field.
    pub fn elicit_form(message: &str, requested_schema: Value) -> Self {
        let params = json!({ "message": message, "requestedSchema": requested_schema });
        InputRequest { method: Cow::Borrowed("elicitation/create"), params, capability: "elicitation.form" }
    }

    /// `elicitation/create` in URL mode.
    pub fn elicit_url(message: &str, url: &str, elicitation_id: &str) -> Self {
        let params = json!({ "mode": "url", "message": message, "url": url, "elicitationId": elicitation_id });
        InputRequest { method: Cow::Borrowed("elicitation/create"), params, capability: "elicitation.url" }
    }

    /// `sampling/createMessage`; offering the model tools needs `sampling.tools`.
    pub fn create_message(params: Value) -> Self {
        let with_tools = params.get("tools").is_some() || params.get("toolChoice").is_some();
        let capability = if with_tools { "sampling.tools" } else { "sampling" };
        InputRequest { method: Cow::Borrowed("sampling/createMessage"), params, capability }
    }

    /// `roots/list`.
    pub fn list_roots() -> Self {
        InputRequest { method: Cow::Borrowed("roots/list"), params: json!({}), capability: "roots" }
    }

    fn raw(method: &str, params: Value) -> Self {
        InputRequest { method: Cow::Owned(method.to_owned()), params, capability: "" }
    }

    /// The question as an `input_required` result or a parked task lists it (2026-07-28 params).
    pub(crate) fn question(&self) -> Value {
        rounds::question(&self.method, &self.params(true))
    }

    /// Whether the client declared what this question needs. An `elicitation` naming no mode has
    /// form mode.
    fn declared(&self, capabilities: &Value) -> bool {
        match self.capability {
            "" => true,
            "elicitation.form" => {
                capabilities.get("elicitation").is_some_and(|e| e.get("form").is_some() || e.get("url").is_none())
            }
            path => path.split('.').try_fold(capabilities, |c, key| c.get(key)).is_some(),
        }
    }

    /// The params as the revision sends them: 2026-07-28 has no `elicitationId`.
    fn params(&self, stateless: bool) -> Value {
        let mut params = self.params.clone();
        if stateless && let Some(p) = params.as_object_mut() {
            p.remove("elicitationId");
        }
        params
    }
}

/// `{"sampling": {"tools": {}}}` for `sampling.tools`: the shape of `requiredCapabilities`.
pub(crate) fn capability_object(path: &str) -> Value {
    path.rsplit('.').fold(json!({}), |inner, key| json!({ key: inner }))
}

fn to_value(data: impl Serialize) -> Value {
    serde_json::to_value(data).unwrap_or(Value::Null)
}

macro_rules! log_shortcuts {
    ($($name:ident => $level:ident),*) => {
        impl<S: Send + Sync + 'static> Cx<S> {
            $(
                #[doc = concat!("Logs at `", stringify!($name), "` level.")]
                pub fn $name(&self, data: impl Serialize) {
                    self.log(LogLevel::$level, data)
                }
            )*
        }
    };
}

log_shortcuts!(debug => Debug, info => Info, notice => Notice, warning => Warning, error => Error);
