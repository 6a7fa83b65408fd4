//! A raw MCP client: sends JSON-RPC messages as they are and hands back every message the server
//! sends, over stdio (a child process) or Streamable HTTP (POST, SSE, GET stream, session header).
//!
//! ```
//! use std::time::Duration;
//!
//! use serde_json::json;
//! use tooltable_golden::client::{Client, StdioClient};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
//! // A server of one line of shell: it answers the first request it reads.
//! let server = r#"read request; echo '{"jsonrpc":"2.0","id":7,"result":{}}'"#;
//! let mut client = Client::Stdio(StdioClient::spawn("sh", &["-c", server])?);
//! client.send(&json!({ "jsonrpc": "2.0", "id": 7, "method": "ping" })).await?;
//! let (before, response) = client.until_response(&json!(7), Duration::from_secs(10)).await?;
//! assert!(before.is_empty());
//! assert_eq!(response, json!({ "jsonrpc": "2.0", "id": 7, "result": {} }));
//! client.close().await?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod http;
mod sse;
mod stdio;

use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;

pub use http::HttpClient;
pub(crate) use sse::SseParser;
pub use stdio::StdioClient;

/// Why the client could not do what it was asked.
#[derive(Debug)]
pub enum ClientError {
    /// The server process or socket could not be reached.
    Io(std::io::Error),
    /// The server answered with something that is not an MCP message (status and body).
    Protocol(String),
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Io(e) => write!(f, "i/o: {e}"),
            ClientError::Protocol(m) => write!(f, "protocol: {m}"),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<std::io::Error> for ClientError {
    fn from(e: std::io::Error) -> Self {
        ClientError::Io(e)
    }
}

/// Either transport, with one way to send and receive.
#[derive(Debug)]
pub enum Client {
    /// A server process on the other end of its stdin and stdout.
    Stdio(StdioClient),
    /// A Streamable HTTP endpoint.
    Http(HttpClient),
}

impl Client {
    /// Sends one message.
    pub async fn send(&mut self, msg: &Value) -> Result<(), ClientError> {
        match self {
            Client::Stdio(c) => c.send(msg).await,
            Client::Http(c) => c.send(msg).await,
        }
    }

    /// The next message from the server, or `None` when none comes within `wait`.
    pub async fn recv(&mut self, wait: Duration) -> Option<Value> {
        let inbox = match self {
            Client::Stdio(c) => &mut c.inbox,
            Client::Http(c) => &mut c.inbox,
        };
        recv(inbox, wait).await
    }

    /// Messages up to and including the response to `id` (notifications and server requests
    /// before it), or an error when it does not come within `wait`.
    pub async fn until_response(&mut self, id: &Value, wait: Duration) -> Result<(Vec<Value>, Value), ClientError> {
        let mut before = Vec::new();
        loop {
            let msg = self
                .recv(wait)
                .await
                .ok_or_else(|| ClientError::Protocol(format!("no response to id {id} within {wait:?}")))?;
            if is_response_to(&msg, id) {
                return Ok((before, msg));
            }
            before.push(msg);
        }
    }

    /// Ends the session: closes stdin and waits for the process, or sends DELETE.
    pub async fn close(self) -> Result<(), ClientError> {
        match self {
            Client::Stdio(c) => c.close().await,
            Client::Http(c) => c.close().await,
        }
    }
}

async fn recv(inbox: &mut mpsc::UnboundedReceiver<Value>, wait: Duration) -> Option<Value> {
    tokio::time::timeout(wait, inbox.recv()).await.ok().flatten()
}

/// The id of a request: a message with a method and an id (`None` for notifications and responses).
pub(crate) fn request_id(msg: &Value) -> Option<&Value> {
    msg.get("method").and(msg.get("id"))
}

/// Whether `msg` is the response to the request with `id`.
pub(crate) fn is_response_to(msg: &Value, id: &Value) -> bool {
    msg.get("method").is_none() && msg.get("id") == Some(id)
}
