//! The two narrow traits [`Cx`](super::Cx) is built over, which the engine implements: what a
//! call sees of the server that runs it, and of the request it answers. Neither is public: an
//! author meets them only through `Cx`'s methods.

use serde_json::{Map, Value};

use super::questions::{ClientRequestError, InputRequest};
use super::request::Era;
use crate::api::descriptor::DynamicTool;
use crate::api::error::Error;
use crate::api::logging::LogLevel;
use crate::api::output::Output;
use crate::api::rpc::RequestId;
use crate::api::table_error::TableError;
use crate::api::tool::BoxFuture;

/// What a call sees of its server.
pub(crate) trait ServerSide<S>: Send + Sync {
    /// The server's state.
    fn state(&self) -> &S;
    /// The server's name (the logger of its log messages).
    fn name(&self) -> &str;
    /// Tells every session subscribed to `uri` that the resource changed.
    fn resource_updated(&self, uri: &str);
    /// Adds (or replaces) a tool at run time.
    fn add_tool(&self, tool: DynamicTool<S>) -> Result<(), TableError>;
    /// Removes a tool added at run time.
    fn remove_tool(&self, name: &str) -> bool;
    /// Runs another tool of the server in the context `cx`.
    fn call_tool(&self, cx: super::Cx<S>, name: &str, args: Value) -> BoxFuture<'static, Result<Output, Error>>;
}

/// What a call sees of the request it answers, when a session carries it.
pub(crate) trait CallSide: Send + Sync {
    fn request_id(&self) -> &RequestId;
    fn era(&self) -> Era;
    /// The revision the request is served in.
    fn protocol_version(&self) -> &'static str;
    /// The capabilities the client declared: in the handshake, or in the request's `_meta`.
    fn client_capabilities(&self) -> Value;
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>);
    /// Whether a message at `level` would be sent: at or above the minimum the request or its
    /// session asked for.
    fn log_enabled(&self, level: LogLevel) -> bool;
    /// Sends a log message, its level already checked.
    fn log(&self, level: LogLevel, data: Value);
    fn is_cancelled(&self) -> bool;
    /// Whether the call was stopped to ask the client (a 2026-07-28 round ending `input_required`).
    fn awaits_input(&self) -> bool;
    fn close_stream(&self);
    fn elicitation_complete(&self, elicitation_id: &str);
    /// Makes the rest of the call a task when it may become one; whether it runs as one.
    fn start_task(&self) -> BoxFuture<'_, bool>;
    /// Asks the client `questions`, each under its key.
    fn ask(
        &self,
        questions: Vec<(String, InputRequest)>,
    ) -> BoxFuture<'_, Result<Map<String, Value>, ClientRequestError>>;
    /// Asks one question under a key of the call's own.
    fn ask_one(&self, question: InputRequest) -> BoxFuture<'_, Result<Value, ClientRequestError>>;
}
