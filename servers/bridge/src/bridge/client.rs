//! The bridge's client of the hub's HTTP API: HTTP/1.1 over one kept-alive connection (a new one
//! when it is busy or gone), a deadline on every call, a bound on every answer, and an error
//! that says what went wrong for each way a hub can fail.

use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Serialize;
use serde_json::Value;
use tokio::net::TcpStream;
use tooltable::{ErrorBody, ErrorKind};

use super::discovery::Target;
use crate::token::Token;

/// Every call to the hub, connecting included, must be answered within this.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(30);
/// The largest answer read from the hub.
pub const DEFAULT_MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;
/// How many calls to the hub may be in flight at once; more wait their turn (within the deadline).
pub const DEFAULT_MAX_IN_FLIGHT: usize = 16;
/// How much of a garbled or failed answer an error quotes.
const QUOTED_CHARS: usize = 200;

/// Why a call to the hub failed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum HubError {
    /// No hub answers at the address.
    Unreachable { hub: String, error: String },
    /// The hub did not answer within the deadline.
    Deadline { hub: String, error: String },
    /// The hub closed the connection before its answer was complete.
    Closed { hub: String, error: String },
    /// The hub's answer is not what the API defines.
    Garbage { hub: String, error: String },
    /// The hub refused the token.
    Unauthorized { hub: String, error: String },
    /// The hub answered with an error status.
    Status { hub: String, error: String, status: u16, answer: Value },
}

impl HubError {
    pub fn message(&self) -> &str {
        match self {
            HubError::Unreachable { error, .. }
            | HubError::Deadline { error, .. }
            | HubError::Closed { error, .. }
            | HubError::Garbage { error, .. }
            | HubError::Unauthorized { error, .. }
            | HubError::Status { error, .. } => error,
        }
    }

    pub(crate) fn garbage(hub: &str, what: impl std::fmt::Display) -> HubError {
        HubError::Garbage { hub: hub.to_owned(), error: format!("the hub at {hub} answered {what}") }
    }
}

impl ErrorBody for HubError {
    fn kind(&self) -> ErrorKind {
        match self {
            HubError::Status { status: 404, .. } => ErrorKind::NotFound,
            HubError::Status { status: 400..=499, .. } => ErrorKind::InvalidInput,
            _ => ErrorKind::Internal,
        }
    }
}

/// The hub's address and token, and the connection kept open between calls.
pub struct HubClient {
    target: Target,
    token: Option<Token>,
    deadline: Duration,
    max_answer_bytes: usize,
    in_flight: tokio::sync::Semaphore,
    idle: std::sync::Mutex<Option<SendRequest<Full<Bytes>>>>,
}

/// The bounds of a [`HubClient`].
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub deadline: Duration,
    pub max_answer_bytes: usize,
    pub max_in_flight: usize,
}

impl HubClient {
    pub fn new(target: Target, token: Option<Token>, limits: Limits) -> Self {
        HubClient {
            target,
            token,
            deadline: limits.deadline,
            max_answer_bytes: limits.max_answer_bytes,
            in_flight: tokio::sync::Semaphore::new(limits.max_in_flight.max(1)),
            idle: std::sync::Mutex::new(None),
        }
    }

    /// The hub's address for messages (`?` when the discovery file cannot be read).
    pub fn addr_label(&self) -> String {
        self.target.addr().unwrap_or_else(|_| "?".to_owned())
    }

    pub async fn get(&self, path: &str) -> Result<Value, HubError> {
        self.call(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Result<Value, HubError> {
        self.call(Method::POST, path, Some(body)).await
    }

    /// One call under the deadline: the JSON of a 2xx answer, or why there is none.
    async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Value, HubError> {
        let hub = self.target.addr().map_err(|error| HubError::Unreachable { hub: "?".into(), error })?;
        let call = async {
            // The semaphore is never closed, so a permit always comes, in turn.
            let _permit = self.in_flight.acquire().await;
            self.exchange(&hub, method, path, body).await
        };
        match tokio::time::timeout(self.deadline, call).await {
            Ok(answer) => answer,
            Err(_) => Err(HubError::Deadline {
                error: format!("the hub at {hub} did not answer within {} ms", self.deadline.as_millis()),
                hub,
            }),
        }
    }

    async fn exchange(&self, hub: &str, method: Method, path: &str, body: Option<&Value>) -> Result<Value, HubError> {
        let (mut sender, reused) = self.connection(hub).await?;
        let bytes = body.map(|b| Bytes::from(b.to_string())).unwrap_or_default();
        let mut req = Request::builder().method(method).uri(path).header(CONTENT_TYPE, "application/json");
        if let Ok(host) = HeaderValue::from_str(hub) {
            req = req.header(HOST, host);
        }
        if let Some(token) = &self.token
            && let Ok(mut value) = HeaderValue::from_str(&format!("Bearer {}", token.secret()))
        {
            value.set_sensitive(true);
            req = req.header(AUTHORIZATION, value);
        }
        let req = req.body(Full::new(bytes)).map_err(|e| HubError::garbage(hub, format!("an unusable path: {e}")))?;
        let closed = |e: &dyn std::fmt::Display| HubError::Closed {
            hub: hub.to_owned(),
            error: format!("the hub at {hub} closed the connection before answering: {e}"),
        };
        let response = match sender.try_send_request(req).await {
            Ok(response) => response,
            Err(mut e) => match e.take_message() {
                // Not sent: a kept connection the hub closed while it was idle. Once more, on a
                // new connection.
                Some(req) if reused => {
                    sender = self.connect(hub).await?;
                    sender.send_request(req).await.map_err(|e| closed(&e))?
                }
                _ => return Err(closed(e.error())),
            },
        };
        let status = response.status();
        let body = Limited::new(response.into_body(), self.max_answer_bytes).collect().await.map_err(|e| {
            if e.is::<http_body_util::LengthLimitError>() {
                HubError::garbage(hub, format!("more than {} bytes", self.max_answer_bytes))
            } else {
                closed(&e)
            }
        })?;
        self.keep(sender);
        let text = String::from_utf8_lossy(&body.to_bytes()).into_owned();
        let text = match &self.token {
            Some(token) => token.redact(&text),
            None => text,
        };
        interpret(hub, status, &text)
    }

    /// The idle connection when it is still open (and true), else a new one.
    async fn connection(&self, hub: &str) -> Result<(SendRequest<Full<Bytes>>, bool), HubError> {
        let idle = self.idle.lock().unwrap_or_else(|p| p.into_inner()).take();
        match idle.filter(|s| s.is_ready()) {
            Some(sender) => Ok((sender, true)),
            None => Ok((self.connect(hub).await?, false)),
        }
    }

    async fn connect(&self, hub: &str) -> Result<SendRequest<Full<Bytes>>, HubError> {
        let unreachable = |e: &dyn std::fmt::Display| HubError::Unreachable {
            hub: hub.to_owned(),
            error: format!("no hub answers at {hub}: {e}"),
        };
        let stream = TcpStream::connect(hub).await.map_err(|e| unreachable(&e))?;
        let _ = stream.set_nodelay(true);
        let (sender, conn) = http1::handshake(TokioIo::new(stream)).await.map_err(|e| unreachable(&e))?;
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!("hub connection ended: {e}");
            }
        });
        Ok(sender)
    }

    fn keep(&self, sender: SendRequest<Full<Bytes>>) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.is_none() {
            *idle = Some(sender);
        }
    }
}

/// A 2xx answer's JSON; the error an error status or an unreadable answer stands for.
fn interpret(hub: &str, status: StatusCode, text: &str) -> Result<Value, HubError> {
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    if status.is_success() {
        return parsed.ok_or_else(|| HubError::garbage(hub, format!("something that is not JSON: {}", quote(text))));
    }
    let said = parsed.as_ref().and_then(|v| v.get("error")).and_then(Value::as_str).map(str::to_owned);
    let said = said.unwrap_or_else(|| quote(text));
    if status == StatusCode::UNAUTHORIZED {
        return Err(HubError::Unauthorized {
            hub: hub.to_owned(),
            error: format!(
                "the hub at {hub} refused the token (give the hub's token with --token or JEVALAN_TOKEN): {said}"
            ),
        });
    }
    let kind = if status.is_server_error() { "failed" } else { "refused the call" };
    Err(HubError::Status {
        hub: hub.to_owned(),
        error: format!("the hub at {hub} {kind} ({status}): {said}"),
        status: status.as_u16(),
        answer: parsed.unwrap_or(Value::Null),
    })
}

/// The start of a text, in quotes, for an error message.
fn quote(text: &str) -> String {
    format!("{:?}", truncate(text))
}

/// The start of a text, for an error message.
pub(crate) fn truncate(text: &str) -> String {
    let mut s: String = text.chars().take(QUOTED_CHARS).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_interpreted_by_status() {
        assert_eq!(interpret("h", StatusCode::OK, "{\"a\":1}"), Ok(serde_json::json!({ "a": 1 })));
        let garbage = interpret("h", StatusCode::OK, "<html>").unwrap_err();
        assert_eq!(garbage.message(), "the hub at h answered something that is not JSON: \"<html>\"");
        let missing = interpret("h", StatusCode::NOT_FOUND, "{\"error\":\"no capability\"}").unwrap_err();
        assert_eq!(missing.message(), "the hub at h refused the call (404 Not Found): no capability");
        assert_eq!(missing.kind(), ErrorKind::NotFound);
        let failed = interpret("h", StatusCode::INTERNAL_SERVER_ERROR, "boom").unwrap_err();
        assert_eq!(failed.message(), "the hub at h failed (500 Internal Server Error): \"boom\"");
        assert!(matches!(interpret("h", StatusCode::UNAUTHORIZED, "").unwrap_err(), HubError::Unauthorized { .. }));
        assert_eq!(quote(&"x".repeat(300)).chars().count(), QUOTED_CHARS + 3);
    }
}
