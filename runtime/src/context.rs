//! `Cx`, an operation's way to the world: the server's state, progress, logging, cancellation,
//! requests to the client, and resource and tool-list changes.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use crate::jsonrpc::{RequestId, RpcError};
use crate::logging::LogLevel;
use crate::server::Server;
use crate::session::CallScope;

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

    /// Sends `notifications/message` when `level` is at or above the session's minimum.
    pub fn log(&self, level: LogLevel, data: impl Serialize) {
        if let Some(scope) = &self.scope {
            let data = serde_json::to_value(data).unwrap_or(Value::Null);
            scope.session.log(level, Some(&self.server.0.info.name), data, Some(&scope.request_id));
        }
    }

    /// Whether the client cancelled this call. A cancelled call is also dropped at its next await.
    pub fn is_cancelled(&self) -> bool {
        self.scope.as_ref().is_some_and(|s| s.cancelled.load(std::sync::atomic::Ordering::Acquire))
    }

    /// Asks the transport to close the stream carrying this call now; the client reconnects and
    /// receives the rest of the call's messages there (HTTP SSE polling, SEP-1699). Over stdio,
    /// which has no streams, it does nothing.
    pub fn close_stream(&self) {
        if let Some(scope) = &self.scope {
            scope.session.close_stream(&scope.request_id);
        }
    }

    /// Sends a request to the client and waits for its answer.
    pub async fn request_client(&self, method: &str, params: Value) -> Result<Value, ClientRequestError> {
        let scope = self.scope.as_ref().ok_or(ClientRequestError::NoSession)?;
        scope.session.request_client(method, params, Some(&scope.request_id)).await
    }

    /// `sampling/createMessage`: asks the client's model. Needs the client's `sampling` capability,
    /// and `sampling.tools` when the request offers the model tools (`tools` or `toolChoice`).
    pub async fn create_message(&self, params: Value) -> Result<Value, ClientRequestError> {
        self.require("sampling", |c| c.get("sampling").is_some())?;
        if params.get("tools").is_some() || params.get("toolChoice").is_some() {
            self.require("sampling.tools", |c| c.pointer("/sampling/tools").is_some())?;
        }
        self.request_client("sampling/createMessage", params).await
    }

    /// `elicitation/create` in form mode: asks the user to fill in `requested_schema`. Needs
    /// `elicitation.form`, or an `elicitation` that names no mode (which means form).
    pub async fn elicit_form(&self, message: &str, requested_schema: Value) -> Result<Value, ClientRequestError> {
        self.require("elicitation.form", |c| {
            c.get("elicitation").is_some_and(|e| e.get("form").is_some() || e.get("url").is_none())
        })?;
        // `mode` is left out: form is the default, and revisions before 2025-11-25 do not know the field.
        let params = json!({ "message": message, "requestedSchema": requested_schema });
        self.request_client("elicitation/create", params).await
    }

    /// `elicitation/create` in URL mode: sends the user to `url`. Needs `elicitation.url`.
    pub async fn elicit_url(
        &self,
        message: &str,
        url: &str,
        elicitation_id: &str,
    ) -> Result<Value, ClientRequestError> {
        self.require("elicitation.url", |c| c.pointer("/elicitation/url").is_some())?;
        let params = json!({ "mode": "url", "message": message, "url": url, "elicitationId": elicitation_id });
        self.request_client("elicitation/create", params).await
    }

    /// `notifications/elicitation/complete`: the URL-mode interaction finished.
    pub fn elicitation_complete(&self, elicitation_id: &str) {
        if let Some(scope) = &self.scope {
            let params = json!({ "elicitationId": elicitation_id });
            scope.session.notify("notifications/elicitation/complete", &params, None);
        }
    }

    fn require(&self, capability: &'static str, has: impl Fn(&Value) -> bool) -> Result<(), ClientRequestError> {
        let scope = self.scope.as_ref().ok_or(ClientRequestError::NoSession)?;
        if has(&scope.session.client_capabilities()) {
            Ok(())
        } else {
            Err(ClientRequestError::NotSupported { capability })
        }
    }
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
