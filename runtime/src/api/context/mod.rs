//! `Cx`, a tool's way to the world: the server's state, progress, logging, cancellation,
//! requests to the client, resource and tool-list changes, and who and what carried the call.
//!
//! ```
//! use tooltable::context::{ClientRequestError, Era, InputRequest, Transport};
//! use tooltable::{Cx, Error, Server, table, tool};
//!
//! /// Asks the user's name when it can, and says how the call came.
//! #[tool]
//! async fn hello(cx: &Cx<()>) -> Result<String, Error> {
//!     let carried = (cx.transport(), cx.era(), cx.principal().map(|p| p.subject.clone()));
//!     let schema = serde_json::json!({ "type": "object", "properties": { "name": { "type": "string" } } });
//!     match cx.ask(vec![("name".into(), InputRequest::elicit_form("Your name?", schema))]).await {
//!         Ok(answers) => Ok(format!("hello {}", answers["name"]["content"]["name"])),
//!         // In process there is no client to ask.
//!         Err(ClientRequestError::NoSession) => Ok(format!("hello, caller of {carried:?}")),
//!         Err(e) => Err(Error::bad_request(e.to_string())),
//!     }
//! }
//!
//! let server = Server::builder(()).tools(table![hello]).build()?;
//! let runtime = tokio::runtime::Builder::new_current_thread().build()?;
//! let greeting = runtime.block_on(server.call("hello", serde_json::json!({}))).unwrap();
//! assert_eq!(greeting, "hello, caller of (InProcess, None, None)");
//! # let _ = Era::Handshake;
//! # let _ = Transport::Stdio;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod call;
mod principal;
mod questions;
pub(crate) mod request;

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::api::descriptor::DynamicTool;
use crate::api::error::Error;
use crate::api::output::Output;
use crate::api::rpc::RequestId;
use crate::api::table_error::TableError;

pub use crate::api::error::{UrlElicitation, UrlElicitationRequired};
pub use crate::api::logging::LogLevel;
pub(crate) use call::{CallSide, ServerSide};
pub use principal::Principal;
pub use questions::{ClientRequestError, InputRequest};
pub(crate) use request::RequestContext;
pub use request::{Era, Transport};

/// The context of one call. Cheap to clone; `Deref`s to the server's state.
pub struct Cx<S> {
    server: Arc<dyn ServerSide<S>>,
    request: RequestContext,
    /// The request a session carries; none for a call outside any session (REST, in process).
    call: Option<Arc<dyn CallSide>>,
}

impl<S> Clone for Cx<S> {
    fn clone(&self) -> Self {
        Cx { server: Arc::clone(&self.server), request: self.request.clone(), call: self.call.clone() }
    }
}

impl<S> std::fmt::Debug for Cx<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cx")
            .field("server", &self.server.name())
            .field("transport", &self.request.transport())
            .field("request_id", &self.request_id())
            .field("era", &self.era())
            .finish_non_exhaustive()
    }
}

impl<S> std::ops::Deref for Cx<S> {
    type Target = S;
    fn deref(&self) -> &S {
        self.server.state()
    }
}

impl<S> Cx<S> {
    pub(crate) fn new(
        server: Arc<dyn ServerSide<S>>,
        request: RequestContext,
        call: Option<Arc<dyn CallSide>>,
    ) -> Self {
        Cx { server, request, call }
    }

    /// The same call, seen from another server (one mounted in this call's): its state is that
    /// server's; the request, the caller and the session's side are this call's.
    pub(crate) fn on_server<T>(&self, server: Arc<dyn ServerSide<T>>) -> Cx<T> {
        Cx { server, request: self.request.clone(), call: self.call.clone() }
    }

    /// The server's state.
    pub fn state(&self) -> &S {
        self.server.state()
    }

    /// The id of the request this call answers, when it came through a session.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.call.as_deref().map(CallSide::request_id)
    }

    /// Which transport carried the call.
    pub fn transport(&self) -> Transport {
        self.request.transport()
    }

    /// Which era of the protocol the call came in; `None` where there is no MCP protocol
    /// (REST, in process).
    pub fn era(&self) -> Option<Era> {
        self.call.as_deref().map(CallSide::era)
    }

    /// The protocol revision the call is served in (`2025-11-25`, `2026-07-28`, ...); `None`
    /// where there is no MCP protocol.
    pub fn protocol_version(&self) -> Option<&'static str> {
        self.call.as_deref().map(CallSide::protocol_version)
    }

    /// The authenticated caller, when the transport knows one (over HTTP, from the request's
    /// credentials; never over stdio).
    pub fn principal(&self) -> Option<&Principal> {
        self.request.principal()
    }

    /// Whether the call was stopped to ask the client: a 2026-07-28 round that ends
    /// `input_required`, the client's retry running the tool again.
    pub(crate) fn awaits_input(&self) -> bool {
        self.call.as_deref().is_some_and(CallSide::awaits_input)
    }

    /// Tells every session subscribed to `uri` that the resource changed.
    pub fn resource_updated(&self, uri: &str) {
        self.server.resource_updated(uri);
    }

    /// Adds (or replaces) a tool at run time and tells every session its list changed.
    pub fn add_tool(&self, tool: DynamicTool<S>) -> Result<(), TableError> {
        self.server.add_tool(tool)
    }

    /// Removes a tool added at run time; tells every session when there was one.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.server.remove_tool(name)
    }

    /// Runs another tool of this server within this call (its progress, logs and questions are
    /// this call's): its validated arguments, its handler, its outcome. An unknown tool or
    /// arguments that are no object are a bad-request failure.
    pub async fn call_tool(&self, name: &str, args: Value) -> Result<Output, Error> {
        self.server.call_tool(self.clone(), name, args).await
    }

    /// Reports progress when the request carried a progressToken. Values that do not increase
    /// are dropped, and nothing is sent once the response has gone.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(call) = &self.call {
            call.progress(progress, total, message);
        }
    }

    /// Sends `notifications/message` when `level` is at or above the minimum: the session's
    /// (`logging/setLevel`), or for a 2026-07-28 request the one its `_meta` asked for, without
    /// which nothing is sent.
    pub fn log(&self, level: LogLevel, data: impl Serialize) {
        if let Some(call) = self.call.as_deref().filter(|call| call.log_enabled(level)) {
            call.log(level, serde_json::to_value(data).unwrap_or(Value::Null));
        }
    }

    /// Makes the rest of this call a task, when it may become one (a 2026-07-28 request that
    /// declares the tasks extension, to a tool declared `task` and `deferred_task`): the request
    /// is answered with the task at once, and this returns `true` once the code runs on as the
    /// task. Otherwise (or for a tool whose calls are tasks from the start, which are already)
    /// the call goes on as it was, and it returns whether it runs as a task. Questions asked
    /// before are asked in rounds; after, they park the task until `tasks/update` answers them.
    pub async fn start_task(&self) -> bool {
        match &self.call {
            Some(call) => call.start_task().await,
            None => false,
        }
    }

    /// Whether the client cancelled this call. A cancelled call is also dropped at its next await.
    pub fn is_cancelled(&self) -> bool {
        self.call.as_deref().is_some_and(CallSide::is_cancelled)
    }

    /// Asks the transport to close the stream carrying this call now; the client reconnects and
    /// receives the rest of the call's messages there (HTTP SSE polling, SEP-1699). Over stdio,
    /// which has no streams, it does nothing.
    /// Under revision 2026-07-28 streams are not resumable and a closed stream cancels its
    /// request, so it does nothing there either.
    pub fn close_stream(&self) {
        if let Some(call) = &self.call {
            call.close_stream();
        }
    }

    /// Sends a request to the client and waits for its answer. Prefer the typed questions below,
    /// which check the client's capabilities first.
    pub async fn request_client(&self, method: &str, params: Value) -> Result<Value, ClientRequestError> {
        self.ask_one(InputRequest::raw(method, params)).await
    }

    /// Asks the client several questions at once and gives their answers by key. Under the
    /// 2025 revisions each is a request to the client; under 2026-07-28 the questions without an
    /// answer yet end this round of the request with `input_required`, and the client's retry
    /// runs the tool again, this time with the answers (write the code before a question
    /// so that running it again does no harm).
    pub async fn ask(&self, questions: Vec<(String, InputRequest)>) -> Result<Map<String, Value>, ClientRequestError> {
        match &self.call {
            Some(call) => call.ask(questions).await,
            None => Err(ClientRequestError::NoSession),
        }
    }

    async fn ask_one(&self, question: InputRequest) -> Result<Value, ClientRequestError> {
        match &self.call {
            Some(call) => call.ask_one(question).await,
            None => Err(ClientRequestError::NoSession),
        }
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

    /// `notifications/elicitation/complete`: the URL-mode interaction finished (2025-11-25; the
    /// stateless revision has no such notification: its client learns it by retrying).
    pub fn elicitation_complete(&self, elicitation_id: &str) {
        if let Some(call) = &self.call {
            call.elicitation_complete(elicitation_id);
        }
    }

    /// The capabilities the client declared: in the handshake, or in a 2026-07-28 request's `_meta`.
    pub fn client_capabilities(&self) -> Value {
        match &self.call {
            Some(call) => call.client_capabilities(),
            None => Value::Object(Map::new()),
        }
    }
}

macro_rules! log_shortcuts {
    ($($name:ident => $level:ident),*) => {
        impl<S> Cx<S> {
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
