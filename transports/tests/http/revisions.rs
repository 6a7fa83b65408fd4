//! What a host of each revision reads on every event stream, driven with a raw HTTP client: before
//! 2025-11-25 no event goes without data (those hosts parse each event's data as JSON); from
//! 2025-11-25 on a new stream opens with a priming event; 2026-07-28 streams carry no ids. On
//! every stream the ids go in the order of the events, and resuming from any of them gives exactly
//! the events after it. The 2026-07-28 calls one connection makes are each answered for themselves.

use std::net::SocketAddr;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use serde_json::{Value, json};
use tooltable_transports::http::HttpOptions;

use crate::mcp::initialize_as;
use crate::support::{keep_alive, start};

/// How long an expected event may take to come.
const WAIT: Duration = Duration::from_secs(5);
/// How long to watch for an event that should not come.
const QUIET: Duration = Duration::from_millis(200);

/// One server-sent event.
#[derive(Debug, Clone, PartialEq)]
struct Event {
    id: Option<String>,
    retry: Option<String>,
    data: Option<String>,
}

impl Event {
    /// Whether it carries a message (a priming event carries none).
    fn message(&self) -> Option<Value> {
        let data = self.data.as_deref().filter(|d| !d.is_empty())?;
        Some(serde_json::from_str(data).unwrap_or_else(|e| panic!("event data is not JSON ({e}): {data:?}")))
    }

    /// Where the event stands on its stream: the server's ids are `{stream}-{sequence}`.
    fn position(&self) -> (u64, u64) {
        let id = self.id.as_deref().unwrap_or_else(|| panic!("an event without an id: {self:?}"));
        let (stream, seq) = id.split_once('-').unwrap_or_else(|| panic!("not a stream-sequence id: {id}"));
        (stream.parse().unwrap(), seq.parse().unwrap())
    }
}

/// An HTTP response read as server-sent events, as they come.
struct EventStream {
    status: u16,
    content_type: Option<String>,
    body: Incoming,
    buffer: String,
}

impl EventStream {
    async fn open(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> EventStream {
        let mut sender = keep_alive(addr).await;
        let mut req = hyper::Request::builder().method(method).uri("/mcp").header("host", addr.to_string());
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let response = sender.send_request(req.body(Full::new(Bytes::from(body.to_owned()))).unwrap()).await.unwrap();
        let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).map(str::to_owned);
        EventStream {
            status: response.status().as_u16(),
            content_type,
            body: response.into_body(),
            buffer: String::new(),
        }
    }

    /// The next event (comments skipped); `None` once the stream ends or when none comes within
    /// `wait`.
    async fn next(&mut self, wait: Duration) -> Option<Event> {
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let field = |name: &str| block.lines().find_map(|l| l.strip_prefix(name)).map(|v| v.trim().to_owned());
                let event = Event { id: field("id:"), retry: field("retry:"), data: field("data:") };
                if event != (Event { id: None, retry: None, data: None }) {
                    return Some(event);
                }
            }
            let frame = tokio::time::timeout(wait, self.body.frame()).await.ok()??.ok()?;
            if let Ok(data) = frame.into_data() {
                self.buffer.push_str(std::str::from_utf8(&data).unwrap());
            }
        }
    }

    /// The next `n` events, each within [`WAIT`].
    async fn take(&mut self, n: usize) -> Vec<Event> {
        let mut events = Vec::new();
        while events.len() < n {
            let event = self.next(WAIT).await;
            events.push(event.unwrap_or_else(|| panic!("{n} events expected, {} came: {events:?}", events.len())));
        }
        events
    }

    /// Every event until the stream ends, or until none comes within `wait`.
    async fn rest(&mut self, wait: Duration) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(event) = self.next(wait).await {
            events.push(event);
        }
        events
    }
}

/// What a tool answered, as every revision has it: the JSON text of its first content block.
fn tool_result(response: &Value) -> Value {
    let text = response["result"]["content"][0]["text"].as_str();
    serde_json::from_str(text.unwrap_or_else(|| panic!("not a tool's answer: {response}"))).unwrap()
}

/// A client of one session, speaking the revision it negotiated.
struct Host {
    addr: SocketAddr,
    version: &'static str,
    session: String,
}

impl Host {
    async fn new(addr: SocketAddr, version: &'static str) -> Host {
        Host { addr, version, session: initialize_as(addr, version).await }
    }

    fn headers<'a>(&'a self, accept: &'a str) -> Vec<(&'a str, &'a str)> {
        let mut headers = vec![("accept", accept), ("mcp-session-id", self.session.as_str())];
        // Hosts send the header from 2025-06-18 on.
        if self.version >= "2025-06-18" {
            headers.push(("mcp-protocol-version", self.version));
        }
        headers
    }

    /// Calls `slow`, which reports progress twice before its answer.
    async fn call_slow(&self, id: u64, accept: &str) -> EventStream {
        let call = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": "slow", "arguments": { "ms": 10 }, "_meta": { "progressToken": id } } });
        let mut headers = self.headers(accept);
        headers.push(("content-type", "application/json"));
        EventStream::open(self.addr, "POST", &headers, &call.to_string()).await
    }

    /// Opens the GET stream, resuming after `last_event_id` when given.
    async fn get(&self, last_event_id: Option<&str>) -> EventStream {
        let mut headers = self.headers("text/event-stream");
        headers.extend(last_event_id.map(|id| ("last-event-id", id)));
        let stream = EventStream::open(self.addr, "GET", &headers, "").await;
        assert_eq!(stream.status, 200);
        stream
    }

    fn primes(&self) -> bool {
        self.version >= "2025-11-25"
    }

    /// What a host of this revision must be able to read of a stream's events: ids in the order of
    /// the events; before 2025-11-25 a message in every event; from it on, the priming event (an
    /// id, `retry`, no data) only where `priming` says.
    fn check(&self, events: &[Event], priming: &[usize]) {
        let positions: Vec<(u64, u64)> = events.iter().map(Event::position).collect();
        assert!(
            positions.windows(2).all(|w| w[0].0 == w[1].0 && w[0].1 < w[1].1),
            "ids in the order of the events: {events:?}"
        );
        let primed: Vec<usize> = (0..events.len()).filter(|&i| events[i].message().is_none()).collect();
        match self.primes() {
            true => assert_eq!(primed, priming, "the priming events: {events:?}"),
            false => assert!(primed.is_empty(), "{}: an event without data: {events:?}", self.version),
        }
        for &i in &primed {
            assert!(events[i].retry.is_some(), "a priming event announces its retry: {:?}", events[i]);
        }
    }

    /// Resumes a stream from each of its events' ids: each gives exactly the messages after it.
    async fn resume_from_each(&self, events: &[Event], ended: bool) {
        for (i, event) in events.iter().enumerate() {
            let expected: Vec<Event> = events[i + 1..].iter().filter(|e| e.message().is_some()).cloned().collect();
            let mut resumed = self.get(event.id.as_deref()).await;
            let replayed = match ended {
                true => resumed.rest(WAIT).await,
                false => resumed.take(expected.len()).await,
            };
            assert_eq!(replayed, expected, "resumed after {:?}", event.id);
            assert_eq!(resumed.next(QUIET).await, None, "nothing more after {:?}", event.id);
        }
    }
}

/// Handshake, the GET stream (with events held for it before it opened, then live ones), a POST
/// answered as an event stream, and a stream its call closes early: under `version`, each read as
/// a host of that revision reads it, and resumed from each of its ids.
async fn every_stream_of(version: &'static str) {
    let s = start(HttpOptions::default()).await;
    let host = Host::new(s.addr, version).await;

    // Answered as JSON, so the progress goes to the GET stream, which holds it until opened.
    let answered = host.call_slow(2, "application/json").await;
    assert_eq!(answered.content_type.as_deref(), Some("application/json"));
    let mut get = host.get(None).await;
    let mut events = get.rest(QUIET).await;
    let held = events.iter().filter(|e| e.message().is_some()).count();
    let call = host.call_slow(3, "application/json").await;
    assert_eq!(call.content_type.as_deref(), Some("application/json"));
    events.extend(get.take(2).await);
    assert_eq!(get.next(QUIET).await, None, "{events:?}");
    drop(get);
    host.check(&events, &[held]);
    let progress: Vec<Value> = events
        .iter()
        .filter_map(Event::message)
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].clone())
        .collect();
    assert_eq!(progress, [1, 2, 1, 2], "{events:?}");
    host.resume_from_each(&events, false).await;

    let mut post = host.call_slow(4, "application/json, text/event-stream").await;
    assert_eq!(post.content_type.as_deref(), Some("text/event-stream"));
    let events = post.rest(WAIT).await;
    host.check(&events, &[0]);
    let messages: Vec<Value> = events.iter().filter_map(Event::message).collect();
    assert_eq!(messages.len(), 3, "two progress notifications, then the response: {events:?}");
    assert_eq!(tool_result(&messages[2]), json!({ "slept": 10 }));
    host.resume_from_each(&events, true).await;

    let detach =
        json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": { "name": "detach", "arguments": {} } });
    let mut headers = host.headers("application/json, text/event-stream");
    headers.push(("content-type", "application/json"));
    let mut post = EventStream::open(s.addr, "POST", &headers, &detach.to_string()).await;
    if host.primes() {
        // Closed after its priming event: the answer comes to the client resuming from it.
        let primed = post.rest(WAIT).await;
        host.check(&primed, &[0]);
        let mut resumed = host.get(primed[0].id.as_deref()).await;
        let answer = resumed.rest(WAIT).await;
        assert_eq!(answer.len(), 1, "{answer:?}");
        assert_eq!(tool_result(&answer[0].message().unwrap()), json!({ "resumed": true }));
    } else {
        // With no event id to resume from, the stream is not closed: the answer comes on the POST.
        assert_eq!(post.content_type.as_deref(), Some("application/json"));
        let body = post.body.collect().await.unwrap().to_bytes();
        let answer: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(tool_result(&answer), json!({ "resumed": true }));
    }
}

#[tokio::test]
async fn a_2024_11_05_host_reads_every_stream() {
    every_stream_of("2024-11-05").await;
}

#[tokio::test]
async fn a_2025_03_26_host_reads_every_stream() {
    every_stream_of("2025-03-26").await;
}

#[tokio::test]
async fn a_2025_06_18_host_reads_every_stream() {
    every_stream_of("2025-06-18").await;
}

#[tokio::test]
async fn a_2025_11_25_host_reads_every_stream() {
    every_stream_of("2025-11-25").await;
}

#[tokio::test]
async fn a_2026_07_28_stream_carries_messages_alone() {
    let s = start(HttpOptions::default()).await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "progressToken": "p",
    });
    let call = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "slow", "arguments": { "ms": 10 }, "_meta": meta } });
    let headers = [
        ("accept", "application/json, text/event-stream"),
        ("content-type", "application/json"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "slow"),
    ];
    let mut post = EventStream::open(s.addr, "POST", &headers, &call.to_string()).await;
    assert_eq!(post.content_type.as_deref(), Some("text/event-stream"));
    let events = post.rest(WAIT).await;
    assert!(events.iter().all(|e| e.id.is_none() && e.retry.is_none()), "streams are not resumable: {events:?}");
    let messages: Vec<Value> = events.iter().map(|e| e.message().expect("a message in every event")).collect();
    assert_eq!(messages.len(), 3, "{events:?}");
    assert_eq!(tool_result(&messages[2]), json!({ "slept": 10 }));
}

/// One 2026-07-28 `tools/call` with no session on `sender`'s connection: its status, content type
/// and body.
async fn stateless_call(
    sender: &mut hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    addr: SocketAddr,
    tool: &str,
    arguments: Value,
    progress: bool,
) -> (u16, String, String) {
    stateless_call_named(sender, addr, tool, tool, arguments, progress).await
}

/// [`stateless_call`] whose `Mcp-Name` header is `name_header`.
async fn stateless_call_named(
    sender: &mut hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    addr: SocketAddr,
    tool: &str,
    name_header: &str,
    arguments: Value,
    progress: bool,
) -> (u16, String, String) {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if progress {
        meta["progressToken"] = json!("p");
    }
    let call = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": tool, "arguments": arguments, "_meta": meta } });
    let req = hyper::Request::post("/mcp")
        .header("host", addr.to_string())
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name_header)
        .body(Full::new(Bytes::from(call.to_string())))
        .unwrap();
    let response = sender.send_request(req).await.unwrap();
    let status = response.status().as_u16();
    let content_type = response.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned()).unwrap();
    let body = tokio::time::timeout(WAIT, response.into_body().collect()).await.expect("the body ends").unwrap();
    (status, content_type, String::from_utf8(body.to_bytes().to_vec()).unwrap())
}

#[tokio::test]
async fn a_connection_s_stateless_calls_are_each_answered_for_themselves() {
    // A connection keeps the session of its last stateless call for its next one: every answer
    // is still its own call's, whatever came before it on the connection.
    let s = start(HttpOptions::default()).await;
    let mut sender = keep_alive(s.addr).await;
    let json = |body: &str| serde_json::from_str::<Value>(body).unwrap();

    for name in ["a", "b"] {
        let (status, kind, body) =
            stateless_call(&mut sender, s.addr, "create_thing", json!({ "name": name }), false).await;
        assert_eq!((status, kind.as_str()), (200, "application/json"));
        assert_eq!(tool_result(&json(&body)), json!({ "created": name }));
    }
    let (status, _, body) = stateless_call(&mut sender, s.addr, "fail", json!({ "kind": "conflict" }), false).await;
    assert_eq!((status, json(&body)["result"]["isError"].clone()), (200, json!(true)));
    // One that waits past its first poll, then one whose progress streams: each its own.
    let (_, _, body) = stateless_call(&mut sender, s.addr, "slow", json!({ "ms": 20 }), false).await;
    assert_eq!(tool_result(&json(&body)), json!({ "slept": 20 }));
    let (status, kind, body) = stateless_call(&mut sender, s.addr, "slow", json!({ "ms": 5 }), true).await;
    assert_eq!((status, kind.as_str(), body.matches("data: ").count()), (200, "text/event-stream", 3), "{body}");
    let (_, kind, body) = stateless_call(&mut sender, s.addr, "create_thing", json!({ "name": "c" }), false).await;
    assert_eq!((kind.as_str(), tool_result(&json(&body))), ("application/json", json!({ "created": "c" })));
    assert_eq!(json(&body)["id"], 1);
}

#[tokio::test]
async fn a_stateless_call_s_name_header_is_the_tool_s_name_as_is_or_base64_wrapped() {
    let s = start(HttpOptions::default()).await;
    let mut sender = keep_alive(s.addr).await;
    let json = |body: &str| serde_json::from_str::<Value>(body).unwrap();
    let args = || json!({ "name": "n" });
    // "create_thing", Base64-wrapped.
    for header in ["create_thing", "=?base64?Y3JlYXRlX3RoaW5n?="] {
        let (status, _, body) = stateless_call_named(&mut sender, s.addr, "create_thing", header, args(), false).await;
        assert_eq!((status, tool_result(&json(&body))), (200, json!({ "created": "n" })), "{header}: {body}");
    }
    // Another tool's name, plain or wrapped, and a wrapped form that names nothing: refused.
    for header in ["slow", "=?base64?c2xvdw==?=", "=?base64?Y3JlYXRlX3RoaW5n"] {
        let (status, _, body) = stateless_call_named(&mut sender, s.addr, "create_thing", header, args(), false).await;
        assert_eq!((status, json(&body)["error"]["code"].clone()), (400, json!(-32020)), "{header}: {body}");
    }
}
