//! One scripted session gives the same JSON-RPC results over stdio and over Streamable HTTP.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};
use tooltable_golden::client::Client;
use tooltable_golden::process;

const BIN: &str = env!("CARGO_BIN_EXE_conformance-server");
const WAIT: Duration = Duration::from_secs(10);

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

fn script() -> Vec<Value> {
    vec![
        request(
            1,
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } }),
        ),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        request(2, "tools/list", json!({})),
        request(3, "tools/call", json!({ "name": "add_numbers", "arguments": { "a": 2, "b": 40 } })),
        request(4, "tools/call", json!({ "name": "test_error_handling", "arguments": {} })),
        request(5, "tools/call", json!({ "name": "add_numbers", "arguments": { "a": "two" } })),
        request(6, "tools/call", json!({ "name": "no_such_tool", "arguments": {} })),
        request(7, "no/such/method", json!({})),
        request(8, "resources/read", json!({ "uri": "test://static-text" })),
        request(9, "resources/read", json!({ "uri": "test://missing" })),
        request(10, "resources/subscribe", json!({ "uri": "test://watched-resource" })),
        request(
            11,
            "tools/call",
            json!({ "name": "touch_resource", "arguments": { "uri": "test://watched-resource" } }),
        ),
        request(
            12,
            "prompts/get",
            json!({ "name": "test_prompt_with_arguments", "arguments": { "arg1": "a", "arg2": "b" } }),
        ),
        request(
            13,
            "tools/call",
            json!({ "name": "test_tool_with_progress", "arguments": {}, "_meta": { "progressToken": 7 } }),
        ),
        request(14, "ping", json!({})),
    ]
}

/// The responses by id, and every other message the server sent, sorted.
async fn run(mut client: Client) -> (BTreeMap<i64, Value>, Vec<String>) {
    let mut responses = BTreeMap::new();
    let mut others = Vec::new();
    for msg in script() {
        client.send(&msg).await.expect("sent");
        if let Some(id) = msg.get("id") {
            let (before, response) = client.until_response(id, WAIT).await.expect("answered");
            others.extend(before.iter().map(Value::to_string));
            responses.insert(id.as_i64().unwrap(), response);
        }
    }
    while let Some(late) = client.recv(Duration::from_millis(300)).await {
        others.push(late.to_string());
    }
    client.close().await.expect("closed");
    others.sort();
    (responses, others)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_and_http_give_the_same_results() {
    let stdio = run(Client::Stdio(process::stdio(BIN, &[]).unwrap())).await;
    let (_server, client) = process::http(BIN, &[]).await.unwrap();
    let http = run(Client::Http(client)).await;
    assert_eq!(stdio.0.len(), 14);
    for (id, response) in &stdio.0 {
        assert_eq!(Some(response), http.0.get(id), "response {id} differs");
    }
    assert_eq!(stdio.1, http.1, "the notifications differ");
    let methods: Vec<&str> =
        stdio.1.iter().filter_map(|m| m.split("\"method\":\"").nth(1)?.split('"').next()).collect();
    assert_eq!(
        methods,
        [
            "notifications/message",
            "notifications/progress",
            "notifications/progress",
            "notifications/progress",
            "notifications/resources/updated"
        ]
    );
    assert_eq!(stdio.0[&4]["result"]["isError"], true);
    assert_eq!(stdio.0[&6]["error"]["code"], -32602);
    assert_eq!(stdio.0[&9]["error"]["code"], -32002);
}
