//! Streamable HTTP: every message is a POST to the endpoint, answered with JSON or an event
//! stream of the messages that belong to it. Under the handshake revisions the session id and
//! revision the server gave go on every later request, the GET stream carries what belongs to
//! no request, and a request's stream that ends early is resumed with `Last-Event-ID`. Under
//! 2026-07-28 every POST mirrors its method, name and marked arguments in headers, and closing a
//! request's stream cancels it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use http_body_util::BodyExt;
use hyper::Method;
use hyper::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tooltable::transport::jsonrpc::{RequestId, RpcError};

use super::peer::{Link, Peer, lock};
use super::sse::Parser;
use super::{ClientError, Options, Task};
use crate::forward::client::Token;
use crate::forward::client::{BaseUrl, Client as Http, Streaming};

const SESSION: HeaderName = HeaderName::from_static("mcp-session-id");
const VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
/// How long a request's answer may take to begin: the request's own deadline stops it sooner.
const ANSWER_HEAD_WAIT: Duration = Duration::from_secs(24 * 60 * 60);
/// Attempts at reopening a broken event stream before its request (or the GET stream) is lost.
const REOPEN_ATTEMPTS: u32 = 3;
/// The pause before reopening when the stream named none, and the longest one honoured.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
const LONGEST_RETRY: Duration = Duration::from_secs(10);

/// The MCP endpoint and what the connection has learnt of it.
pub(crate) struct Endpoint {
    pub url: String,
    /// For requests, whose answer may begin only when they are done.
    calls: Http,
    /// For everything else (notifications, the GET stream, DELETE), under the connect deadline.
    quick: Http,
    session: Mutex<Option<HeaderValue>>,
    version: Mutex<Option<HeaderValue>>,
    stateless: AtomicBool,
}

/// An argument a tool marks with `x-mcp-header`: its header name and where it is in the arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParamHeader {
    name: HeaderName,
    path: Vec<String>,
}

impl Endpoint {
    pub(crate) fn new(url: &str, options: &Options) -> Result<Endpoint, ClientError> {
        let base = BaseUrl::parse(url).map_err(|e| ClientError::InvalidTarget(e.to_string()))?;
        let authorization = options
            .token
            .as_ref()
            .map(Token::header)
            .transpose()
            .map_err(|e| ClientError::InvalidTarget(e.to_string()))?;
        let http = |timeout| Http {
            base: base.clone(),
            timeout,
            max_response_bytes: options.max_message_bytes,
            authorization: authorization.clone(),
        };
        Ok(Endpoint {
            url: base.url(""),
            calls: http(ANSWER_HEAD_WAIT),
            quick: http(options.connect_timeout),
            session: Mutex::new(None),
            version: Mutex::new(None),
            stateless: AtomicBool::new(false),
        })
    }

    /// Which era the requests are sent in (before the connection has settled on one too).
    pub(crate) fn speak(&self, stateless: bool, version: Option<&str>) {
        self.stateless.store(stateless, Ordering::Release);
        *lock(&self.version) = version.and_then(|v| HeaderValue::from_str(v).ok());
    }

    /// Sends a request; its answer is read by the task returned (stopped when dropped).
    pub(crate) fn request(&self, peer: &Arc<Peer>, id: RequestId, message: Value) -> Task {
        let peer = Arc::clone(peer);
        Task::spawn(&peer.runtime.clone(), async move {
            let Link::Http(endpoint) = &peer.link else { return };
            endpoint.exchange(&peer, &id, &message).await;
        })
    }

    /// Sends a notification or a response, not waiting for anything.
    pub(crate) fn post(&self, peer: &Arc<Peer>, message: Value) {
        let peer = Arc::clone(peer);
        peer.runtime.clone().spawn(async move {
            let Link::Http(endpoint) = &peer.link else { return };
            if let Err(e) = endpoint.deliver(&peer, &message).await {
                tracing::debug!("{}: a message was not delivered: {e}", endpoint.url);
            }
        });
    }

    /// Sends a notification or a response and waits until the server has taken it.
    pub(crate) async fn deliver(&self, peer: &Arc<Peer>, message: &Value) -> Result<(), ClientError> {
        let headers = self.headers(peer, message);
        match self.quick.open(&Method::POST, "", Some(message), &headers).await {
            Ok(answer) if answer.status == 404 && self.has_session() => {
                peer.close(self.session_ended());
                Err(ClientError::Closed(self.session_ended()))
            }
            Ok(answer) if (200..300).contains(&answer.status) => Ok(()),
            Ok(answer) => Err(ClientError::Protocol(format!("{} answered {}", self.url, answer.status))),
            Err(failure) => Err(ClientError::Unreachable(failure.error)),
        }
    }

    async fn exchange(&self, peer: &Arc<Peer>, id: &RequestId, message: &Value) {
        let headers = self.headers(peer, message);
        let answer = match self.calls.open(&Method::POST, "", Some(message), &headers).await {
            Ok(answer) => answer,
            Err(failure) => return peer.lost(id, ClientError::Unreachable(failure.error)),
        };
        if let Some(session) = answer.headers.get(SESSION) {
            *lock(&self.session) = Some(session.clone());
        }
        if answer.status == 404 && headers.iter().any(|(name, _)| name == SESSION) {
            return peer.close(self.session_ended());
        }
        if (200..300).contains(&answer.status) && is_event_stream(&answer.headers) {
            let resumable = !self.stateless.load(Ordering::Acquire);
            return self.read_request_stream(peer, id, answer, resumable).await;
        }
        let status = answer.status;
        let body = match self.calls.read(status, answer.headers, answer.body, &self.url).await {
            Ok(answer) => answer.body,
            Err(failure) => return peer.lost(id, ClientError::Closed(failure.error)),
        };
        if !peer.dispatch(&body, Some(id)) {
            peer.lost(id, refusal(&self.url, status, &body));
        }
    }

    /// Reads a request's event stream to its response, resuming it when it ends early (under a
    /// handshake revision; a 2026-07-28 stream that ends loses its request).
    async fn read_request_stream(&self, peer: &Arc<Peer>, id: &RequestId, first: Streaming, resumable: bool) {
        let mut parser = Parser::default();
        let mut stream = first;
        loop {
            let why = match read_events(peer, &mut stream, &mut parser, Some(id)).await {
                End::Answered => return,
                End::TooLarge => return peer.lost(id, too_large(peer)),
                End::Ended(why) => why,
            };
            let Some(last) = parser.last_id.clone().filter(|_| resumable) else {
                return peer.lost(id, ClientError::Closed(format!("the event stream ended before the answer: {why}")));
            };
            match self.reopen(peer, &parser, &last).await {
                Ok(reopened) => stream = reopened,
                Err(why) => return peer.lost(id, ClientError::Closed(why)),
            }
        }
    }

    /// A GET that resumes a stream after its last event, a few attempts apart.
    async fn reopen(&self, peer: &Arc<Peer>, parser: &Parser, last: &str) -> Result<Streaming, String> {
        let mut why = String::new();
        for _ in 0..REOPEN_ATTEMPTS {
            tokio::time::sleep(retry_of(parser)).await;
            let mut headers = self.headers(peer, &Value::Null);
            headers.push((ACCEPT, HeaderValue::from_static("text/event-stream")));
            if let Ok(last) = HeaderValue::from_str(last) {
                headers.push((LAST_EVENT_ID, last));
            }
            match self.quick.open(&Method::GET, "", None, &headers).await {
                Ok(stream) if stream.status == 200 && is_event_stream(&stream.headers) => return Ok(stream),
                Ok(stream) if stream.status == 404 => return Err(self.session_ended()),
                Ok(stream) => why = format!("resuming the event stream was answered {}", stream.status),
                Err(failure) => why = failure.error,
            }
        }
        Err(why)
    }

    /// Opens the GET stream (handshake revisions), and again when it ends; the connection ends
    /// when it cannot be opened again. A server that offers none (405) is left alone.
    pub(crate) fn open_stream(peer: &Arc<Peer>) {
        let reader = Arc::clone(peer);
        peer.keep(Task::spawn(&peer.runtime, async move {
            let Link::Http(endpoint) = &reader.link else { return };
            let mut parser = Parser::default();
            let mut failures = 0;
            let mut why = String::new();
            while failures < REOPEN_ATTEMPTS {
                if failures > 0 || parser.last_id.is_some() {
                    tokio::time::sleep(retry_of(&parser)).await;
                }
                let mut headers = endpoint.headers(&reader, &Value::Null);
                headers.push((ACCEPT, HeaderValue::from_static("text/event-stream")));
                if let Some(last) = parser.last_id.as_deref().and_then(|l| HeaderValue::from_str(l).ok()) {
                    headers.push((LAST_EVENT_ID, last));
                }
                match endpoint.quick.open(&Method::GET, "", None, &headers).await {
                    Ok(stream) if stream.status == 405 => return,
                    Ok(stream) if stream.status == 404 => return reader.close(endpoint.session_ended()),
                    Ok(mut stream) if stream.status == 200 && is_event_stream(&stream.headers) => {
                        failures = 0;
                        match read_events(&reader, &mut stream, &mut parser, None).await {
                            End::TooLarge => return reader.close(too_large(&reader).to_string()),
                            End::Answered | End::Ended(_) => {}
                        }
                    }
                    Ok(stream) => {
                        failures += 1;
                        why = format!("the GET stream was answered {}", stream.status);
                    }
                    Err(failure) => {
                        failures += 1;
                        why = failure.error;
                    }
                }
            }
            reader.close(format!("the event stream could not be opened again: {why}"));
        }));
    }

    /// Ends the session (handshake revisions): DELETE, its answer not awaited for long.
    pub(crate) async fn end_session(&self) {
        let Some(session) = lock(&self.session).clone() else { return };
        let headers = [(SESSION, session)];
        let _ = self.quick.send_with(&Method::DELETE, "", None, &headers).await;
    }

    fn has_session(&self) -> bool {
        lock(&self.session).is_some()
    }

    fn session_ended(&self) -> String {
        format!("{} ended the session (404)", self.url)
    }

    /// The headers a message travels with: what the connection has learnt, and under
    /// 2026-07-28 the method, name and marked arguments it mirrors.
    fn headers(&self, peer: &Peer, message: &Value) -> Vec<(HeaderName, HeaderValue)> {
        let mut headers = vec![(ACCEPT, HeaderValue::from_static("application/json, text/event-stream"))];
        if let Some(session) = lock(&self.session).clone() {
            headers.push((SESSION, session));
        }
        if let Some(version) = lock(&self.version).clone() {
            headers.push((VERSION, version));
        }
        if !self.stateless.load(Ordering::Acquire) {
            return headers;
        }
        let Some(method) = message.get("method").and_then(Value::as_str) else { return headers };
        headers.push((HeaderName::from_static("mcp-method"), mirrored(method)));
        let params = &message["params"];
        let named = match method {
            "tools/call" | "prompts/get" => "name",
            "resources/read" => "uri",
            m if m.starts_with("tasks/") => "taskId",
            _ => return headers,
        };
        if let Some(name) = params.get(named).and_then(Value::as_str) {
            headers.push((HeaderName::from_static("mcp-name"), mirrored(name)));
            if method == "tools/call"
                && let Some(marked) = lock(&peer.param_headers).get(name)
            {
                headers.extend(marked.iter().filter_map(|p| p.value(&params["arguments"])));
            }
        }
        headers
    }
}

impl ParamHeader {
    /// The header for these arguments, when they hold a value at the path.
    fn value(&self, arguments: &Value) -> Option<(HeaderName, HeaderValue)> {
        let value = self.path.iter().try_fold(arguments, |v, key| v.get(key))?;
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_string(),
            _ => return None,
        };
        Some((self.name.clone(), mirrored(&text)))
    }
}

/// The `x-mcp-header` arguments of an inputSchema, or why the tool must be refused: a name that
/// is no header token or is used twice, a mark on a number, an object or an array, or one not
/// reached from the root through `properties` alone.
pub(crate) fn param_headers(schema: &Value) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    let mut stack = vec![(schema, Vec::new())];
    while let Some((schema, path)) = stack.pop() {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else { continue };
        for (key, property) in properties {
            let mut at = path.clone();
            at.push(key.clone());
            if let Some(mark) = property.get("x-mcp-header") {
                let name = mark.as_str().filter(|n| !n.is_empty() && n.bytes().all(is_tchar));
                let name = name.ok_or_else(|| format!("`x-mcp-header` of `{}` is no header name", at.join(".")))?;
                let primitive = property
                    .get("type")
                    .and_then(Value::as_str)
                    .is_none_or(|t| matches!(t, "string" | "integer" | "boolean"));
                if !primitive {
                    return Err(format!(
                        "`{}` is marked `x-mcp-header` but is no string, integer or boolean",
                        at.join(".")
                    ));
                }
                let header = HeaderName::try_from(format!("mcp-param-{}", name.to_ascii_lowercase()))
                    .map_err(|e| format!("`x-mcp-header` {name:?}: {e}"))?;
                if found.iter().any(|p: &ParamHeader| p.name == header) {
                    return Err(format!("two arguments are marked `x-mcp-header` {name:?}"));
                }
                found.push(ParamHeader { name: header, path: at.clone() });
            }
            stack.push((property, at));
        }
    }
    if marks(schema) != found.len() {
        return Err("an `x-mcp-header` mark is not reached from the root through `properties` alone".into());
    }
    Ok(found)
}

/// Every `x-mcp-header` key anywhere in the schema.
fn marks(schema: &Value) -> usize {
    match schema {
        Value::Object(map) => map.iter().map(|(k, v)| usize::from(k == "x-mcp-header") + marks(v)).sum(),
        Value::Array(items) => items.iter().map(marks).sum(),
        _ => 0,
    }
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A value as a header carries it: as it is when it is plain visible ASCII, else in the Base64
/// sentinel form (`=?base64?...?=`), which a plain value that looks like one takes too.
fn mirrored(value: &str) -> HeaderValue {
    let plain = value.bytes().all(|b| (0x20..0x7f).contains(&b) || b == b'\t')
        && value.trim() == value
        && !(value.starts_with("=?base64?") && value.ends_with("?="));
    let text = match plain {
        true => value.to_owned(),
        false => format!("=?base64?{}?=", STANDARD.encode(value)),
    };
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// How a stream's reading ended.
enum End {
    /// The response to the request it was read for came.
    Answered,
    /// An event was larger than the bound.
    TooLarge,
    Ended(String),
}

/// Hands every event of the stream to the peer, until the response to `carrier` or the end.
async fn read_events(
    peer: &Arc<Peer>,
    stream: &mut Streaming,
    parser: &mut Parser,
    carrier: Option<&RequestId>,
) -> End {
    let bound = peer.options.max_message_bytes;
    loop {
        let data = match stream.body.frame().await {
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => data,
                Err(_) => continue,
            },
            Some(Err(e)) => return End::Ended(format!("it broke: {e}")),
            None => return End::Ended("it was closed".into()),
        };
        let Ok(events) = parser.feed(&data, bound) else { return End::TooLarge };
        for event in events.iter().filter(|e| !e.trim().is_empty()) {
            if peer.dispatch(event.as_bytes(), carrier) {
                return End::Answered;
            }
        }
    }
}

fn retry_of(parser: &Parser) -> Duration {
    parser.retry_ms.map(Duration::from_millis).unwrap_or(DEFAULT_RETRY).min(LONGEST_RETRY)
}

fn too_large(peer: &Peer) -> ClientError {
    ClientError::Protocol(format!("an event of more than {} bytes", peer.options.max_message_bytes))
}

fn is_event_stream(headers: &HeaderMap) -> bool {
    headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("text/event-stream"))
}

/// What an answer that is no response to the request means: the JSON-RPC error it carries (a
/// 2026-07-28 refusal names no id when it could not read one), or the status and the body.
fn refusal(url: &str, status: u16, body: &[u8]) -> ClientError {
    let error = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v.get("error").cloned())
        .and_then(|e| serde_json::from_value::<RpcError>(e).ok());
    match error {
        Some(error) => ClientError::Rpc(error),
        None => {
            let text = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
            ClientError::Protocol(format!("{url} answered {status}: {text}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_that_are_no_plain_ascii_travel_in_base64() {
        assert_eq!(mirrored("us-west1"), "us-west1");
        assert_eq!(mirrored("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(mirrored(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(mirrored("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(mirrored("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
    }

    #[test]
    fn marked_arguments_are_found_through_properties_and_refused_elsewhere() {
        let schema = json!({ "type": "object", "properties": {
            "region": { "type": "string", "x-mcp-header": "Region" },
            "nested": { "type": "object", "properties": { "n": { "type": "integer", "x-mcp-header": "N" } } },
        }});
        let marked = param_headers(&schema).unwrap();
        let args = json!({ "region": "eu", "nested": { "n": 7 } });
        let mut headers: Vec<_> = marked.iter().filter_map(|p| p.value(&args)).collect();
        headers.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        assert_eq!(headers[0], (HeaderName::from_static("mcp-param-n"), HeaderValue::from_static("7")));
        assert_eq!(headers[1], (HeaderName::from_static("mcp-param-region"), HeaderValue::from_static("eu")));
        assert!(marked.iter().all(|p| p.value(&json!({})).is_none()), "an absent argument sends no header");

        for bad in [
            json!({ "properties": { "x": { "type": "number", "x-mcp-header": "X" } } }),
            json!({ "properties": { "x": { "x-mcp-header": "bad name" } } }),
            json!({ "properties": { "x": { "x-mcp-header": "X" }, "y": { "x-mcp-header": "x" } } }),
            json!({ "properties": { "x": { "type": "array", "items": { "x-mcp-header": "X" } } } }),
        ] {
            assert!(param_headers(&bad).is_err(), "{bad}");
        }
    }
}
