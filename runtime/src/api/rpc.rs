//! The JSON-RPC vocabulary an author meets: a request's id and the error object a client
//! answers with (a refused question) or a task ends with. The codec itself is the engine's.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The JSON-RPC error codes the engine uses.
///
/// ```
/// use tooltable::transport::jsonrpc::{RpcError, code};
///
/// let refused = RpcError::invalid_params("params.name (a string) is required");
/// assert_eq!(refused.code, code::INVALID_PARAMS);
/// assert_eq!(RpcError::new(code::RESOURCE_NOT_FOUND, "Resource not found: notes://7").code, -32002);
/// ```
pub mod code {
    /// The message is not JSON.
    pub const PARSE_ERROR: i32 = -32700;
    /// The JSON is no JSON-RPC message.
    pub const INVALID_REQUEST: i32 = -32600;
    /// The method is unknown (or not served in the request's revision).
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// The params are not what the method takes.
    pub const INVALID_PARAMS: i32 = -32602;
    /// The server failed on its own side.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// MCP: a resource URI that names nothing.
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// MCP 2026-07-28: the HTTP headers do not match the body.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// MCP 2026-07-28: the request needs a client capability the request did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
    /// MCP 2026-07-28: the request's protocol version is not one the server speaks.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
    /// MCP: the request needs a URL-mode elicitation completed first.
    pub const URL_ELICITATION_REQUIRED: i32 = -32042;
}

/// A request id: an integer or a string (null and fractions are refused).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl RequestId {
    /// The id a JSON value stands for: an integer or a string; `None` for anything else.
    pub fn from_json(value: Value) -> Option<RequestId> {
        match value {
            Value::Number(n) => n.as_i64().map(RequestId::Number),
            Value::String(s) => Some(RequestId::String(s)),
            _ => None,
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// One of [`code`]'s, or the peer's own.
    pub code: i32,
    /// A sentence for a person.
    pub message: String,
    /// What a program may read of the error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with this code and message and no data.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        RpcError { code, message: message.into(), data: None }
    }
    /// -32600.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(code::INVALID_REQUEST, message)
    }
    /// -32602.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(code::INVALID_PARAMS, message)
    }
    /// -32601, naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(code::METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }
    /// -32603.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(code::INTERNAL_ERROR, message)
    }
    /// The error with `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}
