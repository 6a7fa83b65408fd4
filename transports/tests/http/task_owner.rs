//! A task is the caller's that created it: over `/mcp` (2026-07-28, the tasks extension
//! declared) another principal, or a request naming none, is told there is no such task by
//! `tasks/get`, `tasks/update` and `tasks/cancel` alike, changes nothing, and cannot watch it
//! with `subscriptions/listen`.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tooltable::{Cx, Error, Server, table, tool};
use tooltable_transports::http::Http;

use crate::principal::gate;
use crate::support::send;

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// Asks for a confirmation, then reports it: parked in `input_required` until answered.
#[tool(task)]
async fn confirm(cx: &Cx<()>) -> Result<Value, Error> {
    let answer =
        cx.elicit_form("Sure?", json!({ "type": "object" })).await.map_err(|e| Error::bad_request(e.to_string()))?;
    Ok(json!({ "confirmed": answer["content"]["confirm"] }))
}

async fn start() -> SocketAddr {
    let server = Server::builder(()).info("tasks", "1").tools(table![confirm]).build().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(Http::new(server).gate(gate).serve(listener, std::future::pending()));
    addr
}

/// The body of a 2026-07-28 request whose client declares the tasks extension and elicitation.
fn body(method: &str, mut params: Value) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": {}, "extensions": { TASKS: {} } },
    });
    json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }).to_string()
}

/// Sends that request with `token` (none for `None`); its status and JSON-RPC answer.
async fn ask(addr: SocketAddr, token: Option<&str>, method: &str, params: Value) -> (u16, Value) {
    // What the Mcp-Name header repeats: the tool's name, or the task's id.
    let name = params["name"].as_str().or(params["taskId"].as_str()).unwrap_or_default().to_owned();
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
        ("mcp-name", &name),
    ];
    let bearer = token.map(|token| format!("Bearer {token}"));
    headers.extend(bearer.as_deref().map(|bearer| ("authorization", bearer)));
    let reply = send(addr, "POST", "/mcp", &headers, &body(method, params)).await;
    (reply.status, reply.json())
}

/// Polls `tasks/get` as `token` until the task's status is `status`, or it has ended; its state
/// then.
async fn poll_until(addr: SocketAddr, token: &str, task: &str, status: &str) -> Value {
    for _ in 0..250 {
        let (_, got) = ask(addr, Some(token), "tasks/get", json!({ "taskId": task })).await;
        let now = got["result"]["status"].as_str().unwrap_or_default();
        if now == status || ["completed", "failed", "cancelled"].contains(&now) {
            return got["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {task} never reached {status}");
}

/// Opens a listen as `token` for the task's changes; what its acknowledgment says it watches.
async fn listen_for(addr: SocketAddr, token: &str, task: &str) -> Value {
    let body = body("subscriptions/listen", json!({ "notifications": { "taskIds": [task] } }));
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\naccept: application/json, text/event-stream\r\n\
         content-type: application/json\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: subscriptions/listen\r\n\
         authorization: Bearer {token}\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut conn = TcpStream::connect(addr).await.unwrap();
    conn.write_all(request.as_bytes()).await.unwrap();
    let mut read = Vec::new();
    let acknowledged = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let text = String::from_utf8_lossy(&read);
            let line = text.lines().find(|line| line.contains("notifications/subscriptions/acknowledged"));
            if let Some(data) = line.and_then(|line| line.strip_prefix("data:")) {
                return serde_json::from_str::<Value>(data.trim()).unwrap();
            }
            let mut chunk = [0u8; 1024];
            let n = conn.read(&mut chunk).await.unwrap();
            assert!(n > 0, "the stream ended before its acknowledgment: {text}");
            read.extend_from_slice(&chunk[..n]);
        }
    });
    acknowledged.await.expect("the listen is acknowledged")["params"]["notifications"].clone()
}

#[tokio::test]
async fn a_task_is_reached_only_by_the_principal_that_created_it() {
    let addr = start().await;
    let (_, created) = ask(addr, Some("alice"), "tools/call", json!({ "name": "confirm", "arguments": {} })).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"].as_str().expect("a taskId").to_owned();
    let parked = poll_until(addr, "alice", &task, "input_required").await;
    let key = parked["inputRequests"].as_object().and_then(|r| r.keys().next()).expect("a question").clone();
    let answer = json!({ key.as_str(): { "action": "accept", "content": { "confirm": true } } });

    // To bob, and to a request naming nobody, alice's task does not exist: each method answers
    // as it does for an id never made.
    let (never_status, never) = ask(addr, Some("alice"), "tasks/get", json!({ "taskId": "no-such-task" })).await;
    assert_eq!(never["error"]["code"], -32602, "{never}");
    for token in [Some("bob"), None] {
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let (status, refused) = ask(addr, token, method, json!({ "taskId": task, "inputResponses": answer })).await;
            assert_eq!(status, never_status, "{method} as {token:?}: {refused}");
            assert_eq!(refused["error"]["code"], -32602, "{method} as {token:?}: {refused}");
            let message = refused["error"]["message"].as_str().unwrap_or_default();
            assert!(message.starts_with("no task"), "{method} as {token:?}: {refused}");
        }
    }
    assert_eq!(listen_for(addr, "bob", &task).await.get("taskIds"), None, "bob watches nothing");
    assert_eq!(listen_for(addr, "alice", &task).await["taskIds"], json!([task]));

    // Nothing bob sent reached the task: still waiting on its question, neither answered nor
    // cancelled; alice answers it and it completes.
    let still = poll_until(addr, "alice", &task, "input_required").await;
    assert_eq!(still["status"], "input_required", "{still}");
    assert_eq!(still["inputRequests"], parked["inputRequests"], "{still}");
    let (status, updated) =
        ask(addr, Some("alice"), "tasks/update", json!({ "taskId": task, "inputResponses": answer })).await;
    assert_eq!((status, &updated["result"]["resultType"]), (200, &json!("complete")), "{updated}");
    let done = poll_until(addr, "alice", &task, "completed").await;
    assert_eq!(done["result"]["structuredContent"], json!({ "confirmed": true }), "{done}");
}
