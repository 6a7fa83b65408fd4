use std::time::Duration;

use serde_json::{Value, json};
use tooltable_transports::http::HttpOptions;

use crate::support::{Reply, send, start};

const JSON_AND_SSE: (&str, &str) = ("accept", "application/json, text/event-stream");
const CONTENT_JSON: (&str, &str) = ("content-type", "application/json");

pub async fn post(addr: std::net::SocketAddr, session: Option<&str>, msg: Value) -> Reply {
    let mut headers = vec![JSON_AND_SSE, CONTENT_JSON];
    if let Some(s) = session {
        headers.push(("mcp-session-id", s));
    }
    send(addr, "POST", "/mcp", &headers, &msg.to_string()).await
}

pub async fn initialize(addr: std::net::SocketAddr) -> String {
    initialize_as(addr, "2025-11-25").await
}

/// A session of revision `version`, initialized.
pub async fn initialize_as(addr: std::net::SocketAddr, version: &str) -> String {
    let r = post(addr, None, json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": version, "capabilities": {} } })).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let session = r.header("mcp-session-id").expect("a session id").to_owned();
    let n = post(addr, Some(&session), json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    assert_eq!(n.status, 202);
    assert!(n.body.is_empty());
    session
}

/// The `data` of each event of an event-stream body, and each event's id.
fn events(r: &Reply) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(&r.body);
    text.split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(|e| {
            let field = |name: &str| e.lines().find_map(|l| l.strip_prefix(name)).unwrap_or("").trim().to_owned();
            (field("id:"), field("data:"))
        })
        .collect()
}

#[tokio::test]
async fn sessions_are_random_required_and_deletable() {
    let s = start(HttpOptions::default()).await;
    let a = initialize(s.addr).await;
    let b = initialize(s.addr).await;
    assert_ne!(a, b);
    assert!(a.len() == 32 && a.bytes().all(|c| c.is_ascii_hexdigit()), "{a}");
    let ping = json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" });
    assert_eq!(post(s.addr, None, ping.clone()).await.status, 400);
    assert_eq!(post(s.addr, Some("0000"), ping.clone()).await.status, 404);
    let r = post(s.addr, Some(&a), ping.clone()).await;
    assert_eq!(r.json(), json!({ "jsonrpc": "2.0", "id": 2, "result": {} }));
    let d = send(s.addr, "DELETE", "/mcp", &[("mcp-session-id", a.as_str())], "").await;
    assert_eq!(d.status, 200);
    assert_eq!(post(s.addr, Some(&a), ping.clone()).await.status, 404);
    assert_eq!(post(s.addr, Some(&b), ping).await.status, 200, "other sessions live on");
}

#[tokio::test]
async fn a_refused_initialize_leaves_no_session() {
    let s = start(HttpOptions::default()).await;
    let r = post(
        s.addr,
        None,
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": {} } }),
    )
    .await;
    assert_eq!(r.json()["error"]["code"], -32602);
    assert_eq!(r.header("mcp-session-id"), None);
    let session = initialize(s.addr).await;
    let again = post(s.addr, Some(&session), json!({ "jsonrpc": "2.0", "id": 5, "method": "initialize", "params": { "protocolVersion": "2025-11-25", "capabilities": {} } })).await;
    assert_eq!(again.json()["error"]["code"], -32600);
    let ping = post(s.addr, Some(&session), json!({ "jsonrpc": "2.0", "id": 6, "method": "ping" })).await;
    assert_eq!(ping.status, 200, "a second initialize does not end the session");
}

#[tokio::test]
async fn idle_sessions_expire() {
    let s = start(HttpOptions { session_idle: Duration::from_millis(200), ..HttpOptions::default() }).await;
    let session = initialize(s.addr).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    let r = post(s.addr, Some(&session), json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" })).await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn headers_are_checked() {
    let s = start(HttpOptions::default()).await;
    let session = initialize(s.addr).await;
    let ping = json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" }).to_string();
    let with = |extra: (&'static str, &'static str)| {
        vec![JSON_AND_SSE, CONTENT_JSON, ("mcp-session-id", session.as_str()), extra]
    };
    assert_eq!(send(s.addr, "POST", "/mcp", &with(("mcp-protocol-version", "1999-01-01")), &ping).await.status, 400);
    assert_eq!(send(s.addr, "POST", "/mcp", &with(("mcp-protocol-version", "2025-06-18")), &ping).await.status, 200);
    assert_eq!(send(s.addr, "POST", "/mcp", &with(("origin", "http://evil.example.com")), &ping).await.status, 403);
    assert_eq!(send(s.addr, "POST", "/mcp", &with(("origin", "http://localhost:5173")), &ping).await.status, 200);
    let evil_host = send(s.addr, "GET", "/openapi.json", &[("host", "evil.example.com")], "").await;
    assert_eq!(evil_host.status, 403);
    let r = send(s.addr, "POST", "/mcp", &[JSON_AND_SSE, ("content-type", "text/plain")], &ping).await;
    assert_eq!(r.status, 415);
    let r = send(s.addr, "POST", "/mcp", &[("accept", "text/html"), CONTENT_JSON], &ping).await;
    assert_eq!(r.status, 406);
}

#[tokio::test]
async fn an_allowed_origin_passes() {
    let s =
        start(HttpOptions { allowed_origins: vec!["https://app.example.com".into()], ..HttpOptions::default() }).await;
    let r = send(s.addr, "GET", "/openapi.json", &[("origin", "https://app.example.com")], "").await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn malformed_messages_get_json_rpc_errors() {
    let s = start(HttpOptions::default()).await;
    let session = initialize(s.addr).await;
    let headers = [JSON_AND_SSE, CONTENT_JSON, ("mcp-session-id", session.as_str())];
    let r = send(s.addr, "POST", "/mcp", &headers, "{not json").await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32700);
    let r = send(s.addr, "POST", "/mcp", &headers, r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).await;
    assert_eq!(r.json()["error"]["code"], -32600);
    let r = send(s.addr, "POST", "/mcp", &headers, "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}").await;
    assert_eq!(r.json(), json!({ "jsonrpc": "2.0", "id": 2, "result": {} }), "a leading BOM is tolerated");
}

#[tokio::test]
async fn a_call_with_progress_streams_its_events_then_its_response() {
    let s = start(HttpOptions::default()).await;
    let session = initialize(s.addr).await;
    let call = json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": { "name": "slow", "arguments": { "ms": 10 }, "_meta": { "progressToken": "p" } } });
    let r = post(s.addr, Some(&session), call).await;
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let events = events(&r);
    assert_eq!(events.len(), 4, "{events:?}");
    assert_eq!(events[0].1, "", "a priming event first");
    assert!(
        String::from_utf8_lossy(&r.body).starts_with("id: ") && String::from_utf8_lossy(&r.body).contains("retry: ")
    );
    let progress: Vec<Value> = events[1..3].iter().map(|(_, d)| serde_json::from_str(d).unwrap()).collect();
    assert_eq!(progress[0]["params"]["progress"], 1);
    assert_eq!(progress[1]["params"]["progress"], 2);
    let response: Value = serde_json::from_str(&events[3].1).unwrap();
    assert_eq!(response["result"]["structuredContent"], json!({ "slept": 10 }));
    let mut ids: Vec<&String> = events.iter().map(|(id, _)| id).collect();
    ids.dedup();
    assert_eq!(ids.len(), 4, "event ids are unique");
}

#[tokio::test]
async fn a_closed_stream_resumes_with_last_event_id() {
    let s = start(HttpOptions::default()).await;
    let session = initialize(s.addr).await;
    let call =
        json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": { "name": "detach", "arguments": {} } });
    let r = post(s.addr, Some(&session), call).await;
    let first = events(&r);
    assert_eq!(first.len(), 1, "only the priming event before the stream closed: {first:?}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let headers =
        [("accept", "text/event-stream"), ("mcp-session-id", session.as_str()), ("last-event-id", first[0].0.as_str())];
    let resumed = send(s.addr, "GET", "/mcp", &headers, "").await;
    let replayed = events(&resumed);
    assert_eq!(replayed.len(), 1, "{replayed:?}");
    let response: Value = serde_json::from_str(&replayed[0].1).unwrap();
    assert_eq!(response["id"], 9);
    assert_eq!(response["result"]["structuredContent"], json!({ "resumed": true }));
}

#[tokio::test]
async fn shutdown_lets_a_running_call_finish() {
    let mut s = start(HttpOptions::default()).await;
    let session = initialize(s.addr).await;
    let addr = s.addr;
    let call = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "slow", "arguments": { "ms": 400 } } });
    let running = tokio::spawn(async move { post(addr, Some(&session), call).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(s.stop.take());
    let r = running.await.unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["structuredContent"], json!({ "slept": 400 }));
    tokio::time::timeout(Duration::from_secs(5), &mut s.done).await.expect("the server stopped").unwrap().unwrap();
    assert!(tokio::net::TcpStream::connect(addr).await.is_err(), "no more connections");
}

#[tokio::test]
async fn shutdown_closes_idle_connections_at_once() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = start(HttpOptions { shutdown_grace: Duration::from_secs(30), ..HttpOptions::default() }).await;
    // One connection that never sent a request, one kept alive after its first.
    let mut silent = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let mut kept = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: localhost\r\naccept: application/json\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{ping}",
        ping.len()
    );
    kept.write_all(request.as_bytes()).await.unwrap();
    let mut answer = vec![0; 4096];
    let n = kept.read(&mut answer).await.unwrap();
    assert!(String::from_utf8_lossy(&answer[..n]).starts_with("HTTP/1.1 400"), "answered, connection kept");
    let begun = std::time::Instant::now();
    drop(s.stop.take());
    tokio::time::timeout(Duration::from_secs(5), &mut s.done).await.expect("the server stopped").unwrap().unwrap();
    assert!(begun.elapsed() < Duration::from_secs(5), "no wait for the grace period: {:?}", begun.elapsed());
    for stream in [&mut silent, &mut kept] {
        let read = tokio::time::timeout(Duration::from_secs(2), stream.read(&mut answer)).await.expect("closed");
        assert!(matches!(read, Ok(0) | Err(_)), "the connection was closed: {read:?}");
    }
}

#[tokio::test]
async fn arguments_nested_too_deep_are_a_tool_error() {
    let s = start(HttpOptions::default()).await;
    let session = initialize(s.addr).await;
    let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"slow","arguments":{{"ms":{deep}}}}}}}"#
    );
    let headers = [JSON_AND_SSE, CONTENT_JSON, ("mcp-session-id", session.as_str())];
    let r = send(s.addr, "POST", "/mcp", &headers, &call).await;
    assert_eq!(r.status, 200);
    let body = r.json();
    assert_eq!(body["id"], 4);
    assert_eq!(body["result"]["isError"], true);
    assert_eq!(body["result"]["structuredContent"]["violations"][0]["keyword"], "maxDepth");
}

#[tokio::test]
async fn a_cancelled_call_ends_its_post_without_a_response() {
    let s = start(HttpOptions::default()).await;
    let session = initialize(s.addr).await;
    let addr = s.addr;
    let sid = session.clone();
    let call = json!({ "jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": { "name": "slow", "arguments": { "ms": 5000 } } });
    let running = tokio::spawn(async move {
        let headers = [("accept", "application/json"), CONTENT_JSON, ("mcp-session-id", sid.as_str())];
        send(addr, "POST", "/mcp", &headers, &call.to_string()).await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 8 } });
    assert_eq!(post(s.addr, Some(&session), cancel).await.status, 202);
    let r = tokio::time::timeout(Duration::from_secs(2), running).await.expect("the POST ends at once").unwrap();
    assert_eq!(r.status, 202);
    assert!(r.body.is_empty(), "no response for a cancelled request");
}

#[tokio::test]
async fn a_duplicate_in_flight_id_is_refused_without_a_second_response_for_that_id() {
    let s = start(HttpOptions::default()).await;
    let session = initialize(s.addr).await;
    let addr = s.addr;
    let call = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "slow", "arguments": { "ms": 300 } } });
    let sid = session.clone();
    let first = {
        let call = call.clone();
        tokio::spawn(async move { post(addr, Some(&sid), call).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let duplicate = post(s.addr, Some(&session), call).await;
    assert_eq!(duplicate.status, 409);
    assert_eq!(duplicate.json()["id"], Value::Null, "not a second response for id 3");
    assert_eq!(duplicate.json()["error"]["code"], -32600);
    let response = first.await.unwrap().json();
    assert_eq!(response["id"], 3);
    assert_eq!(response["result"]["structuredContent"], json!({ "slept": 300 }));
}

#[tokio::test]
async fn an_open_event_stream_keeps_its_session_alive_and_sends_keepalives() {
    use tokio::io::AsyncReadExt;
    let options = HttpOptions {
        session_idle: Duration::from_millis(200),
        sse_keepalive: Duration::from_millis(100),
        ..HttpOptions::default()
    };
    let s = start(options).await;
    let session = initialize(s.addr).await;
    let mut stream = open_get_stream(s.addr, &session).await;
    let mut seen = Vec::new();
    let listening = tokio::time::timeout(Duration::from_millis(700), async {
        let mut buf = [0u8; 1024];
        while let Ok(n @ 1..) = stream.read(&mut buf).await {
            seen.extend_from_slice(&buf[..n]);
        }
    });
    assert!(listening.await.is_err(), "the stream stays open");
    let seen = String::from_utf8_lossy(&seen);
    assert!(seen.matches(": keepalive\n\n").count() >= 3, "keepalive comments while idle: {seen}");
    let r = post(s.addr, Some(&session), json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" })).await;
    assert_eq!(r.status, 200, "a session listening on its stream is not idle");
}

/// A GET stream on a raw connection, held open while the connection is.
pub async fn open_get_stream(addr: std::net::SocketAddr, session: &str) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let get =
        format!("GET /mcp HTTP/1.1\r\nhost: {addr}\r\naccept: text/event-stream\r\nmcp-session-id: {session}\r\n\r\n");
    stream.write_all(get.as_bytes()).await.unwrap();
    stream
}

#[tokio::test]
async fn at_the_session_cap_the_least_recently_used_idle_session_makes_room() {
    let s = start(HttpOptions { max_sessions_per_client: 2, ..HttpOptions::default() }).await;
    let ping = json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" });
    let oldest = initialize(s.addr).await;
    let used = initialize(s.addr).await;
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert_eq!(post(s.addr, Some(&oldest), ping.clone()).await.status, 200, "now the most recently used");
    let newest = initialize(s.addr).await;
    assert_eq!(post(s.addr, Some(&used), ping.clone()).await.status, 404, "the least recently used was ended");
    assert_eq!(post(s.addr, Some(&oldest), ping.clone()).await.status, 200);
    assert_eq!(post(s.addr, Some(&newest), ping).await.status, 200);
}

#[tokio::test]
async fn a_session_cap_full_of_busy_sessions_refuses_a_new_one() {
    let s = start(HttpOptions { max_sessions: 1, ..HttpOptions::default() }).await;
    let listening = initialize(s.addr).await;
    let _stream = open_get_stream(s.addr, &listening).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let r = post(s.addr, None, json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-11-25", "capabilities": {} } })).await;
    assert_eq!(r.status, 503);
    assert!(
        r.json()["error"].as_str().unwrap_or_default().contains("1 sessions, the most it may have, all busy"),
        "{:?}",
        r.body
    );
    let ping = json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" });
    assert_eq!(post(s.addr, Some(&listening), ping).await.status, 200, "the busy session lives on");
}
