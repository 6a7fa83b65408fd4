use serde_json::json;

use crate::support::{Server, error_code};

fn initialize(version: &str) -> serde_json::Value {
    let mut s = Server::start(&[]);
    s.request(
        1,
        "initialize",
        json!({ "protocolVersion": version, "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } }),
    );
    s.response(1)
}

#[test]
fn each_supported_version_is_echoed() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let r = initialize(version);
        assert_eq!(r["result"]["protocolVersion"], version, "{r}");
        assert_eq!(r["result"]["serverInfo"]["name"], "conformance-server");
        assert!(r["result"]["instructions"].as_str().is_some_and(|s| !s.is_empty()));
    }
}

#[test]
fn an_unknown_version_gets_the_newest() {
    let r = initialize("1999-01-01");
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn capabilities_reflect_what_the_server_has() {
    let caps = &initialize("2025-11-25")["result"]["capabilities"];
    assert_eq!(caps["tools"], json!({ "listChanged": true }));
    assert_eq!(caps["resources"]["subscribe"], true);
    assert!(caps["prompts"].is_object());
    assert_eq!(caps["completions"], json!({}));
    assert_eq!(caps["logging"], json!({}));
}

#[test]
fn initialized_gets_no_reply_but_a_readiness_log_and_ping_answers_empty() {
    let mut s = Server::start(&[]);
    s.request(1, "initialize", json!({ "protocolVersion": "2025-06-18", "capabilities": {} }));
    s.response(1);
    s.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    let log = s.recv();
    assert_eq!(log["method"], "notifications/message");
    assert_eq!(log["params"]["level"], "info");
    let line = log["params"]["data"].as_str().unwrap();
    assert!(line.contains("ready") && !line.contains('\n'), "{line}");
    s.request(2, "ping", json!({}));
    assert_eq!(s.response(2)["result"], json!({}));
}

#[test]
fn requests_before_initialize_are_refused_but_ping_is_served() {
    let mut s = Server::start(&[]);
    s.request(1, "tools/list", json!({}));
    let r = s.response(1);
    assert_eq!(error_code(&r), -32602, "neither a handshake nor a 2026-07-28 `_meta`: {r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("initialize"), "{r}");
    s.request(2, "ping", json!({}));
    assert_eq!(s.response(2)["result"], json!({}));
}

#[test]
fn a_2026_client_needs_no_handshake() {
    let mut s = Server::start(&[]);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    s.request(1, "server/discover", json!({ "_meta": meta }));
    let r = s.response(1);
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert!(r["result"]["supportedVersions"].as_array().unwrap().contains(&json!("2026-07-28")));
    assert_eq!(r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "conformance-server");
    s.request(2, "tools/call", json!({ "name": "add_numbers", "arguments": { "a": 2, "b": 40 }, "_meta": meta }));
    let r = s.response(2);
    assert_eq!(
        (r["result"]["resultType"].clone(), r["result"]["structuredContent"].clone()),
        (json!("complete"), json!({ "sum": 42 }))
    );
}

#[test]
fn a_second_initialize_and_one_without_a_version_are_refused() {
    let mut s = Server::start(&[]);
    s.request(1, "initialize", json!({ "capabilities": {} }));
    assert_eq!(error_code(&s.response(1)), -32602);
    s.request(2, "initialize", json!({ "protocolVersion": "2025-11-25", "capabilities": {} }));
    assert!(s.response(2)["result"].is_object());
    s.request(3, "initialize", json!({ "protocolVersion": "2025-11-25", "capabilities": {} }));
    assert_eq!(error_code(&s.response(3)), -32600);
}

#[test]
fn older_revisions_see_no_structured_output() {
    let mut s = Server::start(&[]);
    s.request(1, "initialize", json!({ "protocolVersion": "2025-03-26", "capabilities": {} }));
    s.response(1);
    s.request(2, "tools/list", json!({}));
    let tools = s.response(2)["result"]["tools"].as_array().unwrap().clone();
    assert!(tools.iter().all(|t| t.get("outputSchema").is_none() && t.get("title").is_none()));
    let r = s.call(3, "add_numbers", json!({ "a": 1, "b": 2 }));
    assert!(r["result"].get("structuredContent").is_none());
    assert_eq!(r["result"]["content"][0]["text"], "{\n  \"sum\": 3\n}");
}
