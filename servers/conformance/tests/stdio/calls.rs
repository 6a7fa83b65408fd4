use std::time::Duration;

use serde_json::json;

use crate::support::Server;

#[test]
fn a_cancelled_call_gets_no_response_and_the_session_goes_on() {
    let mut s = Server::ready(json!({}));
    s.request(1, "tools/call", json!({ "name": "sleep", "arguments": { "ms": 3000 } }));
    s.send(&json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 1, "reason": "test" } }));
    s.request(2, "ping", json!({}));
    assert_eq!(s.response(2)["result"], json!({}));
    assert_eq!(s.maybe_recv(Duration::from_millis(3500)), None, "nothing may answer the cancelled call");
}

#[test]
fn a_slow_call_blocks_neither_ping_nor_another_call() {
    let mut s = Server::ready(json!({}));
    s.request(1, "tools/call", json!({ "name": "sleep", "arguments": { "ms": 1500 } }));
    s.request(2, "ping", json!({}));
    s.request(3, "tools/call", json!({ "name": "add_numbers", "arguments": { "a": 1, "b": 1 } }));
    let order: Vec<_> = (0..3).map(|_| s.recv()["id"].clone()).collect();
    assert_eq!(order, [json!(2), json!(3), json!(1)]);
}

#[test]
fn progress_is_strictly_increasing_and_ends_before_the_response() {
    let mut s = Server::ready(json!({}));
    s.request(
        1,
        "tools/call",
        json!({ "name": "sleep", "arguments": { "ms": 100, "steps": 5 }, "_meta": { "progressToken": "tok" } }),
    );
    let (before, response) = s.until_response(1);
    let progress: Vec<f64> = before
        .iter()
        .map(|n| {
            assert_eq!(n["method"], "notifications/progress");
            assert_eq!(n["params"]["progressToken"], "tok");
            assert_eq!(n["params"]["total"], 5);
            n["params"]["progress"].as_f64().unwrap()
        })
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!(response["result"]["isError"], false);
    assert_eq!(s.maybe_recv(Duration::from_millis(200)), None);
}

#[test]
fn no_progress_without_a_token() {
    let mut s = Server::ready(json!({}));
    s.request(1, "tools/call", json!({ "name": "sleep", "arguments": { "ms": 50, "steps": 3 } }));
    let (before, _) = s.until_response(1);
    assert!(before.is_empty(), "{before:?}");
}

#[test]
fn adding_a_tool_sends_list_changed_and_the_tool_is_callable() {
    let mut s = Server::ready(json!({}));
    s.request(1, "tools/call", json!({ "name": "add_tool", "arguments": { "name": "echo.dynamic" } }));
    let (before, response) = s.until_response(1);
    assert_eq!(response["result"]["isError"], false);
    assert!(before.iter().any(|n| n["method"] == "notifications/tools/list_changed"), "{before:?}");
    s.request(2, "tools/list", json!({}));
    let tools = s.response(2)["result"]["tools"].as_array().unwrap().clone();
    assert_eq!(tools.last().unwrap()["name"], "echo.dynamic");
    let r = s.call(3, "echo.dynamic", json!({ "text": "hi" }));
    assert_eq!(r["result"]["structuredContent"], json!({ "echo": { "text": "hi" } }));
    let bad = s.call(4, "add_tool", json!({ "name": "has space" }));
    assert_eq!(bad["result"]["isError"], true);
    s.request(5, "tools/call", json!({ "name": "remove_tool", "arguments": { "name": "echo.dynamic" } }));
    let (before, _) = s.until_response(5);
    assert!(before.iter().any(|n| n["method"] == "notifications/tools/list_changed"));
    s.request(6, "tools/call", json!({ "name": "echo.dynamic", "arguments": {} }));
    assert_eq!(s.response(6)["error"]["code"], -32602);
}

#[test]
fn log_messages_below_the_level_are_suppressed() {
    let mut s = Server::ready(json!({}));
    s.request(1, "tools/call", json!({ "name": "test_tool_with_logging", "arguments": {} }));
    let (before, _) = s.until_response(1);
    let data: Vec<_> = before.iter().map(|n| n["params"]["data"].as_str().unwrap().to_owned()).collect();
    assert_eq!(data, ["Tool execution started", "Tool processing data", "Tool execution completed"]);
    s.request(2, "logging/setLevel", json!({ "level": "warning" }));
    assert_eq!(s.response(2)["result"], json!({}));
    s.request(3, "tools/call", json!({ "name": "test_tool_with_logging", "arguments": {} }));
    assert!(s.until_response(3).0.is_empty(), "info logs are below warning");
    s.request(4, "tools/call", json!({ "name": "emit_log", "arguments": { "level": "error", "message": "bad" } }));
    let (before, _) = s.until_response(4);
    assert_eq!(before.len(), 1);
    assert_eq!(before[0]["params"]["level"], "error");
    assert_eq!(before[0]["params"]["data"], "bad");
}

#[test]
fn content_results_are_given_as_blocks() {
    let mut s = Server::ready(json!({}));
    let r = s.call(1, "test_multiple_content_types", json!({}));
    let kinds: Vec<_> = r["result"]["content"].as_array().unwrap().iter().map(|c| c["type"].clone()).collect();
    assert_eq!(kinds, [json!("text"), json!("image"), json!("resource")]);
    assert!(r["result"].get("structuredContent").is_none());
    let audio = s.call(2, "test_audio_content", json!({}));
    assert_eq!(audio["result"]["content"][0]["mimeType"], "audio/wav");
}

#[test]
fn resources_read_templates_and_subscriptions() {
    let mut s = Server::ready(json!({}));
    s.request(1, "resources/read", json!({ "uri": "test://template/123/data" }));
    let r = s.response(1);
    let text: serde_json::Value = serde_json::from_str(r["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["id"], "123");
    s.request(2, "resources/templates/list", json!({}));
    assert_eq!(s.response(2)["result"]["resourceTemplates"][0]["uriTemplate"], "test://template/{id}/data");
    s.request(3, "resources/subscribe", json!({ "uri": "test://watched-resource" }));
    assert_eq!(s.response(3)["result"], json!({}));
    s.request(4, "tools/call", json!({ "name": "touch_resource", "arguments": { "uri": "test://watched-resource" } }));
    let (before, _) = s.until_response(4);
    assert_eq!(before.len(), 1);
    assert_eq!(before[0]["method"], "notifications/resources/updated");
    assert_eq!(before[0]["params"]["uri"], "test://watched-resource");
    s.request(5, "resources/unsubscribe", json!({ "uri": "test://watched-resource" }));
    s.response(5);
    s.request(6, "tools/call", json!({ "name": "touch_resource", "arguments": { "uri": "test://watched-resource" } }));
    assert!(s.until_response(6).0.is_empty());
}

#[test]
fn prompts_and_completion() {
    let mut s = Server::ready(json!({}));
    s.request(
        1,
        "prompts/get",
        json!({ "name": "test_prompt_with_arguments", "arguments": { "arg1": "hello", "arg2": "world" } }),
    );
    let text = s.response(1)["result"]["messages"][0]["content"]["text"].clone();
    assert_eq!(text, "Prompt with arguments: arg1='hello', arg2='world'");
    s.request(2, "completion/complete", json!({ "ref": { "type": "ref/prompt", "name": "test_prompt_with_arguments" }, "argument": { "name": "arg1", "value": "par" } }));
    let completion = s.response(2)["result"]["completion"].clone();
    assert_eq!(completion, json!({ "values": ["paris", "park", "party"], "total": 3, "hasMore": false }));
}
