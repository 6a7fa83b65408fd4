//! Why a request of the client got no result: a message for a person, a stable reason for a
//! program.

use std::fmt;
use std::time::Duration;

use tooltable::transport::jsonrpc::RpcError;

/// Why the client could not connect, or a request got no result.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientError {
    /// The target is no command or `http://` URL this client can use.
    InvalidTarget(String),
    /// The server could not be started or reached (the command failed to start, the connection
    /// was refused).
    Unreachable(String),
    /// The connection ended before the answer: the process exited, the session was ended, the
    /// event stream broke.
    Closed(String),
    /// No answer came within the request's deadline.
    Timeout(Duration),
    /// The server answered with a JSON-RPC error.
    Rpc(RpcError),
    /// The server answered with something that is not MCP, or speaks no revision this client does.
    Protocol(String),
    /// Input the server asked for could not be given.
    Unanswered(RpcError),
}

impl ClientError {
    /// The kind of failure, for a program: `invalid_target`, `unreachable`, `closed`, `timeout`,
    /// `error`, `protocol` or `unanswered`.
    pub fn reason(&self) -> &'static str {
        match self {
            ClientError::InvalidTarget(_) => "invalid_target",
            ClientError::Unreachable(_) => "unreachable",
            ClientError::Closed(_) => "closed",
            ClientError::Timeout(_) => "timeout",
            ClientError::Rpc(_) => "error",
            ClientError::Protocol(_) => "protocol",
            ClientError::Unanswered(_) => "unanswered",
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::InvalidTarget(why) => write!(f, "no server to connect to: {why}"),
            ClientError::Unreachable(why) => write!(f, "could not be reached: {why}"),
            ClientError::Closed(why) => write!(f, "the connection ended: {why}"),
            ClientError::Timeout(after) => write!(f, "did not answer within {after:?}"),
            ClientError::Rpc(e) => write!(f, "answered with an error: {e}"),
            ClientError::Protocol(why) => write!(f, "answered with no MCP message: {why}"),
            ClientError::Unanswered(e) => write!(f, "asked for input that could not be given: {e}"),
        }
    }
}

impl std::error::Error for ClientError {}
