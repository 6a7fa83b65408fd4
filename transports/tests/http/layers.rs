//! Layers and limits over HTTP: the call log's line for each call over `/mcp` (both eras) and
//! REST, a tool's time limit and concurrency limit as each answers them, and `--rate-limit`'s
//! 429 with `Retry-After`.

use std::net::SocketAddr;
use std::time::Duration;

use hyper::header::AUTHORIZATION;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tooltable::layer::CallLog;
use tooltable::{Error, Principal, Server, table, tool};
use tooltable_transports::http::{Http, HttpOptions, HttpResponse, RateLimit};

use crate::support::{Reply, send};

#[path = "../../../runtime/tests/support/calls.rs"]
mod calls;
use calls::CallLogLines;

#[derive(Deserialize, JsonSchema)]
struct Millis {
    ms: u64,
}

/// Sleeps, in at most 50 ms.
#[tool(timeout_ms = 50, rest = "GET /nap/{ms}")]
async fn nap(args: Millis) -> Result<Value, Error> {
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    Ok(json!({ "slept": args.ms }))
}

/// Sleeps, one call at a time.
#[tool(max_concurrent = 1, rest = "GET /single/{ms}")]
async fn single(args: Millis) -> Result<Value, Error> {
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    Ok(json!({ "slept": args.ms }))
}

/// Says hello.
#[tool(read_only, rest = "GET /hello")]
async fn hello() -> Result<Value, Error> {
    Ok(json!("hello"))
}

/// `Bearer NAME` names NAME; no header, nobody.
fn gate(headers: &hyper::HeaderMap) -> Result<Option<Principal>, HttpResponse> {
    let token = headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    Ok(token.map(Principal::new))
}

async fn start(options: HttpOptions) -> SocketAddr {
    let server = Server::builder(()).tools(table![nap, single, hello]).layer(CallLog).build().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(Http::new(server).options(options).gate(gate).serve(listener, std::future::pending()));
    addr
}

const POST: [(&str, &str); 2] =
    [("content-type", "application/json"), ("accept", "application/json, text/event-stream")];

/// A 2026-07-28 `tools/call`, which needs no session.
async fn stateless_call(addr: SocketAddr, tool: &str, arguments: Value) -> Reply {
    let meta = json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} });
    let call = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": tool, "arguments": arguments, "_meta": meta } });
    let headers =
        [POST[0], POST[1], ("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", tool)];
    send(addr, "POST", "/mcp", &headers, &call.to_string()).await
}

/// A `tools/call` in a new 2025-11-25 session.
async fn session_call(addr: SocketAddr, tool: &str, arguments: Value) -> Reply {
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } });
    let opened = send(addr, "POST", "/mcp", &POST, &initialize.to_string()).await;
    let session = opened.header("mcp-session-id").expect("a session").to_owned();
    let headers = [POST[0], POST[1], ("mcp-protocol-version", "2025-11-25"), ("mcp-session-id", session.as_str())];
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    send(addr, "POST", "/mcp", &headers, &initialized.to_string()).await;
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": tool, "arguments": arguments } });
    send(addr, "POST", "/mcp", &headers, &call.to_string()).await
}

/// A tool result's failure body; null when it is no failure.
fn failure(reply: &Reply) -> Value {
    calls::failure(&reply.json())
}

#[tokio::test]
async fn the_call_log_has_a_line_per_call_over_mcp_in_both_eras_and_over_rest() {
    // The test's runtime has one thread: the server's tasks log where the lines are captured.
    let log = CallLogLines::capture();
    let addr = start(HttpOptions::default()).await;
    assert_eq!(send(addr, "GET", "/hello", &[], "").await.json(), "hello");
    assert!(failure(&session_call(addr, "hello", json!({})).await).is_null());
    assert_eq!(failure(&stateless_call(addr, "nap", json!({ "ms": 1000 })).await)["limitMs"], 50);

    assert_eq!(
        log.fields(),
        [
            "tool=hello transport=rest era=none outcome=ok",
            "tool=hello transport=http era=handshake outcome=ok",
            "tool=nap transport=http era=stateless outcome=tool_error",
        ]
    );
}

#[tokio::test]
async fn a_call_past_its_time_limit_is_a_504_over_rest_and_a_tool_error_over_mcp() {
    let addr = start(HttpOptions::default()).await;
    let limit = json!({ "error": "Time limit exceeded", "limitMs": 50 });
    let rest = send(addr, "GET", "/nap/1000", &[], "").await;
    assert_eq!((rest.status, rest.json()), (504, limit.clone()));
    assert_eq!(failure(&session_call(addr, "nap", json!({ "ms": 1000 })).await), limit);
    assert_eq!(send(addr, "GET", "/nap/5", &[], "").await.json(), json!({ "slept": 5 }));
}

#[tokio::test]
async fn calls_beyond_max_concurrent_are_refused_429_over_rest_and_as_tool_errors_over_mcp() {
    let addr = start(HttpOptions::default()).await;
    let refusal = json!({ "error": "Too many concurrent calls", "maxConcurrent": 1 });
    let rest = tokio::join!(
        send(addr, "GET", "/single/300", &[], ""),
        send(addr, "GET", "/single/300", &[], ""),
        send(addr, "GET", "/single/300", &[], "")
    );
    let mut statuses = [rest.0.status, rest.1.status, rest.2.status];
    statuses.sort();
    assert_eq!(statuses, [200, 200, 429], "one runs, one waits, one is refused");
    let refused = [rest.0, rest.1, rest.2].into_iter().find(|r| r.status == 429).unwrap();
    assert_eq!(refused.json(), refusal);

    let mcp = tokio::join!(
        stateless_call(addr, "single", json!({ "ms": 300 })),
        stateless_call(addr, "single", json!({ "ms": 300 })),
        stateless_call(addr, "single", json!({ "ms": 300 }))
    );
    let failures: Vec<Value> = [mcp.0, mcp.1, mcp.2].iter().map(failure).filter(|f| !f.is_null()).collect();
    assert_eq!(failures, [refusal]);
}

#[tokio::test]
async fn past_the_rate_limit_rest_and_mcp_posts_are_429_with_retry_after_per_caller() {
    let options = HttpOptions { rate_limit: Some("2/s".parse::<RateLimit>().unwrap()), ..HttpOptions::default() };
    let addr = start(options).await;
    assert_eq!(send(addr, "GET", "/hello", &[], "").await.status, 200);
    assert_eq!(failure(&stateless_call(addr, "hello", json!({})).await), Value::Null, "one bucket for both");
    let limited = send(addr, "GET", "/hello", &[], "").await;
    assert_eq!(limited.status, 429);
    assert_eq!(limited.header("retry-after"), Some("1"));
    assert_eq!(limited.json(), json!({ "error": "Rate limit exceeded", "limitPerSecond": 2 }));
    assert_eq!(stateless_call(addr, "hello", json!({})).await.status, 429, "an /mcp POST counts too");
    assert_eq!(send(addr, "GET", "/openapi.json", &[], "").await.status, 200, "the document does not count");
    let alice = [("authorization", "Bearer alice")];
    assert_eq!(send(addr, "GET", "/hello", &alice, "").await.status, 200, "a principal has a bucket of its own");
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(send(addr, "GET", "/hello", &[], "").await.status, 200, "a token comes back every half second");
}
