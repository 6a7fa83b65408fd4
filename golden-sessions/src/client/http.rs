//! Streamable HTTP: each message is a POST to the endpoint; a JSON answer or every event of an
//! event-stream answer lands in the inbox. The session id and protocol version learnt at
//! initialize go on every later request; after `notifications/initialized` the GET stream opens.
//! A request's event stream that ends before its response is resumed with `Last-Event-ID`.

use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::sse::SseParser;
use super::{ClientError, is_response_to, request_id};

/// How long a POST may wait for its answer to start (a server starting on a loaded machine is slow).
pub(crate) const POST: Duration = Duration::from_secs(60);

/// Where requests go and the headers the session has earned.
#[derive(Clone)]
struct Endpoint {
    authority: String,
    path: String,
    session: Option<String>,
    protocol_version: Option<String>,
}

/// A client of one Streamable HTTP endpoint: POSTs each message, reads JSON answers and event
/// streams (resumed with `Last-Event-ID`), opens the GET stream once initialized, and keeps the
/// session id and negotiated version it is given.
pub struct HttpClient {
    endpoint: Endpoint,
    outbox: mpsc::UnboundedSender<Value>,
    pub(super) inbox: mpsc::UnboundedReceiver<Value>,
    readers: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let endpoint = &self.endpoint;
        f.debug_struct("HttpClient")
            .field("url", &format!("http://{}{}", endpoint.authority, endpoint.path))
            .field("session", &endpoint.session)
            .field("protocol_version", &endpoint.protocol_version)
            .finish_non_exhaustive()
    }
}

fn protocol(e: impl std::fmt::Display) -> ClientError {
    ClientError::Protocol(e.to_string())
}

impl Endpoint {
    async fn request(
        &self,
        method: Method,
        body: Option<String>,
        last_event_id: Option<&str>,
        mirrored: &[(&'static str, String)],
    ) -> Result<Response<Incoming>, ClientError> {
        let stream = TcpStream::connect(&self.authority).await?;
        stream.set_nodelay(true)?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(protocol)?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        let mut req = Request::builder()
            .method(method)
            .uri(&self.path)
            .header(HOST, &self.authority)
            .header(ACCEPT, "application/json, text/event-stream");
        if body.is_some() {
            req = req.header(CONTENT_TYPE, "application/json");
        }
        if let Some(session) = &self.session {
            req = req.header("mcp-session-id", session);
        }
        if let Some(version) = &self.protocol_version {
            req = req.header("mcp-protocol-version", version);
        }
        if let Some(id) = last_event_id {
            req = req.header("last-event-id", id);
        }
        for (name, value) in mirrored {
            req = req.header(*name, value);
        }
        let req = req.body(Full::new(Bytes::from(body.unwrap_or_default()))).map_err(protocol)?;
        sender.send_request(req).await.map_err(protocol)
    }
}

/// The headers a 2026-07-28 request mirrors its body into: its version, method and name.
fn mirrored(msg: &Value) -> Vec<(&'static str, String)> {
    let params = &msg["params"];
    let Some(version) = params.pointer("/_meta/io.modelcontextprotocol~1protocolVersion").and_then(Value::as_str)
    else {
        return Vec::new();
    };
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let mut headers = vec![("mcp-protocol-version", version.to_owned()), ("mcp-method", method.to_owned())];
    let named = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        m if m.starts_with("tasks/") => "taskId",
        _ => return headers,
    };
    if let Some(name) = params.get(named).and_then(Value::as_str) {
        headers.push(("mcp-name", name.to_owned()));
    }
    headers
}

impl HttpClient {
    /// A client of `http://host:port/path`.
    pub fn new(url: &str) -> Result<Self, ClientError> {
        let rest = url.strip_prefix("http://").ok_or_else(|| protocol(format!("not an http:// URL: {url}")))?;
        let (authority, path) = rest.split_once('/').map_or((rest, "/".to_owned()), |(a, p)| (a, format!("/{p}")));
        let (outbox, inbox) = mpsc::unbounded_channel();
        let endpoint = Endpoint { authority: authority.to_owned(), path, session: None, protocol_version: None };
        Ok(HttpClient { endpoint, outbox, inbox, readers: Vec::new() })
    }

    /// `http://host:port`, where the endpoint's server also serves its REST routes.
    pub fn origin(&self) -> String {
        format!("http://{}", self.endpoint.authority)
    }

    /// Sends one message; its POST's answer (a JSON body, or the head of an event stream read on
    /// from then) must come within a minute.
    pub async fn send(&mut self, msg: &Value) -> Result<(), ClientError> {
        tokio::time::timeout(POST, self.post(msg))
            .await
            .map_err(|_| protocol(format!("no answer to the POST within {POST:?}")))?
    }

    async fn post(&mut self, msg: &Value) -> Result<(), ClientError> {
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        let response = self.endpoint.request(Method::POST, Some(msg.to_string()), None, &mirrored(msg)).await?;
        if let Some(session) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
            self.endpoint.session = Some(session.to_owned());
        }
        let status = response.status();
        if status == StatusCode::ACCEPTED {
            if method == "notifications/initialized" {
                self.open_get_stream().await?;
            }
            return Ok(());
        }
        if is_event_stream(&response) && status.is_success() {
            let awaited = request_id(msg).cloned();
            let reader = read_events(response.into_body(), self.endpoint.clone(), awaited, self.outbox.clone());
            self.readers.push(tokio::spawn(reader));
            return Ok(());
        }
        let body = response.into_body().collect().await.map_err(protocol)?.to_bytes();
        let answer: Value = serde_json::from_slice(&body)
            .map_err(|_| protocol(format!("HTTP {status}: {}", String::from_utf8_lossy(&body))))?;
        if answer.get("jsonrpc").is_none() {
            return Err(protocol(format!("HTTP {status}: {answer}")));
        }
        if method == "initialize"
            && let Some(v) = answer.pointer("/result/protocolVersion").and_then(Value::as_str)
        {
            self.endpoint.protocol_version = Some(v.to_owned());
        }
        let _ = self.outbox.send(answer);
        Ok(())
    }

    /// Opens the standalone GET stream for messages that belong to no request.
    async fn open_get_stream(&mut self) -> Result<(), ClientError> {
        let response = self.endpoint.request(Method::GET, None, None, &[]).await?;
        if response.status().is_success() && is_event_stream(&response) {
            let reader = read_events(response.into_body(), self.endpoint.clone(), None, self.outbox.clone());
            self.readers.push(tokio::spawn(reader));
        }
        Ok(())
    }

    /// Ends the session with DELETE, when the server gave one.
    pub async fn close(self) -> Result<(), ClientError> {
        if self.endpoint.session.is_some() {
            let response = self.endpoint.request(Method::DELETE, None, None, &[]).await?;
            if !response.status().is_success() {
                return Err(protocol(format!("DELETE answered {}", response.status())));
            }
        }
        Ok(())
    }
}

impl Drop for HttpClient {
    fn drop(&mut self) {
        for reader in &self.readers {
            reader.abort();
        }
    }
}

fn is_event_stream(response: &Response<Incoming>) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// Reads events into the inbox. When the stream of a request ends before its response, it is
/// resumed by GET with the last event id, after the delay a polling client waits.
async fn read_events(
    mut body: Incoming,
    endpoint: Endpoint,
    awaited: Option<Value>,
    outbox: mpsc::UnboundedSender<Value>,
) {
    let mut parser = SseParser::default();
    loop {
        while let Some(Ok(frame)) = body.frame().await {
            let Some(chunk) = frame.data_ref() else { continue };
            for data in parser.feed(chunk) {
                let msg =
                    serde_json::from_str(&data).unwrap_or_else(|e| Value::String(format!("<not JSON: {e}> {data}")));
                let answered = awaited.as_ref().is_some_and(|id| is_response_to(&msg, id));
                if outbox.send(msg).is_err() || answered {
                    return;
                }
            }
        }
        let (Some(_), Some(last)) = (&awaited, parser.last_id.clone()) else { return };
        tokio::time::sleep(Duration::from_millis(50)).await;
        match endpoint.request(Method::GET, None, Some(&last), &[]).await {
            Ok(response) if response.status().is_success() => body = response.into_body(),
            _ => return,
        }
    }
}
