use serde_json::json;

use crate::support::{Server, body, error_code};

#[test]
fn malformed_lines_get_errors_and_the_server_goes_on() {
    let mut s = Server::ready(json!({}));
    let cases: [(&[u8], i64); 6] = [
        (b"this is not json\n", -32700),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"\n", -32700),
        (b"42\n", -32600),
        (b"{\"jsonrpc\":\"2.0\",\"id\":5}\n", -32600),
        (b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n", -32600),
        (b"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}\n", -32700),
    ];
    for (line, code) in cases {
        s.send_raw(line);
        let r = s.recv();
        assert_eq!(error_code(&r), code, "for {:?}: {r}", String::from_utf8_lossy(line));
        assert!(r["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    s.send_raw(b"[1,2]\n");
    assert!(s.recv()["error"]["message"].as_str().unwrap().contains("batch"));
    s.request(9, "ping", json!({}));
    assert_eq!(s.response(9)["result"], json!({}));
}

#[test]
fn a_request_without_a_method_keeps_its_id() {
    let mut s = Server::ready(json!({}));
    s.send(&json!({ "jsonrpc": "2.0", "id": 77, "params": {} }));
    let r = s.recv();
    assert_eq!(r["id"], 77);
    assert_eq!(error_code(&r), -32600);
}

#[test]
fn protocol_faults_get_their_codes() {
    let mut s = Server::ready(json!({}));
    s.request(1, "no/such/method", json!({}));
    assert_eq!(error_code(&s.response(1)), -32601);
    s.request(2, "tools/call", json!({ "name": "no_such_tool", "arguments": {} }));
    assert_eq!(error_code(&s.response(2)), -32602);
    s.request(3, "tools/call", json!({ "arguments": {} }));
    assert_eq!(error_code(&s.response(3)), -32602);
    s.request(4, "tools/call", json!({ "name": "add_numbers", "arguments": [1, 2] }));
    assert_eq!(error_code(&s.response(4)), -32602);
    s.request(5, "tools/list", json!({ "cursor": "not-a-cursor" }));
    assert_eq!(error_code(&s.response(5)), -32602);
    s.request(6, "resources/read", json!({ "uri": "test://nothing-here" }));
    let r = s.response(6);
    assert_eq!(error_code(&r), -32002);
    assert_eq!(r["error"]["data"]["uri"], "test://nothing-here");
    s.request(7, "tools/call", json!({ "name": "panic_now", "arguments": {} }));
    assert_eq!(error_code(&s.response(7)), -32603);
    s.request(8, "logging/setLevel", json!({ "level": "loud" }));
    assert_eq!(error_code(&s.response(8)), -32602);
    s.request(9, "prompts/get", json!({ "name": "test_prompt_with_arguments", "arguments": { "arg1": "x" } }));
    assert_eq!(error_code(&s.response(9)), -32602);
    s.request(10, "ping", json!({}));
    assert_eq!(s.response(10)["result"], json!({}), "the server survives a panicking handler");
}

#[test]
fn invalid_arguments_are_a_tool_error_naming_path_keyword_and_message() {
    let mut s = Server::ready(json!({}));
    let r = s.call(1, "add_numbers", json!({ "a": "one", "b": 2 }));
    assert_eq!(r["result"]["isError"], true);
    let v = &body(&r)["violations"][0];
    assert_eq!(v["path"], "/a");
    assert_eq!(v["keyword"], "type");
    assert!(v["message"].as_str().unwrap().contains("number"), "{v}");
}

#[test]
fn a_misspelt_argument_is_rejected_by_name() {
    let mut s = Server::ready(json!({}));
    let r = s.call(1, "sleep", json!({ "ms": 1, "stpes": 2 }));
    assert_eq!(r["result"]["isError"], true);
    let violations = body(&r)["violations"].as_array().unwrap().clone();
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0]["path"], "/stpes");
    assert!(violations[0]["message"].as_str().unwrap().contains("unknown argument `stpes`"));
}

#[test]
fn a_tool_failure_is_an_error_result_with_its_parsed_body() {
    let mut s = Server::ready(json!({}));
    let r = s.call(1, "test_error_handling", json!({}));
    assert_eq!(r["result"]["isError"], true);
    let body = json!({ "error": "This tool intentionally returns an error for testing" });
    assert_eq!(r["result"]["structuredContent"], body, "the tool declares no outputSchema, so any body goes");
    assert_eq!(super::support::body(&r), body);
}

#[test]
fn an_error_body_the_output_schema_does_not_admit_is_left_out_of_structured_content() {
    let mut s = Server::ready(json!({}));
    // add_numbers declares an outputSchema (`{sum}`); the invalid-arguments body is no such object.
    let r = s.call(1, "add_numbers", json!({ "a": "one", "b": 2 }));
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"].get("structuredContent").is_none(), "{r}");
    assert_eq!(body(&r)["error"], "Invalid arguments");
}

#[test]
fn a_sum_that_is_not_finite_is_a_tool_error() {
    let mut s = Server::ready(json!({}));
    let r = s.call(1, "add_numbers", json!({ "a": 1.7e308, "b": 1.7e308 }));
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(body(&r)["error"].as_str().unwrap().contains("not a finite number"), "{r}");
}

#[test]
fn an_unknown_prompt_is_invalid_params_not_resource_not_found() {
    let mut s = Server::ready(json!({}));
    s.request(1, "prompts/get", json!({ "name": "no_such_prompt" }));
    let r = s.response(1);
    assert_eq!(error_code(&r), -32602, "{r}");
    assert_eq!(r["error"]["message"], "Prompt not found: no_such_prompt");
}

#[test]
fn a_request_with_a_null_id_is_answered_with_invalid_request() {
    let mut s = Server::ready(json!({}));
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}\n");
    let r = s.recv();
    assert_eq!(error_code(&r), -32600, "{r}");
    assert_eq!(r["id"], serde_json::Value::Null);
}

#[test]
fn the_size_guard_replaces_an_oversized_result() {
    let mut s = Server::ready(json!({}));
    let r = s.call(1, "large_result", json!({ "chars": 60000 }));
    // The call succeeded: the note says the result was withheld, not that the call failed.
    assert_eq!(r["result"]["isError"], false);
    let note = body(&r);
    assert_eq!(note["error"], "Result too large");
    assert_eq!(note["limitChars"], 50000);
    assert!(note["resultChars"].as_u64().unwrap() > 60000);
    assert!(note["hint"].as_str().is_some());
    let ok = s.call(2, "large_result", json!({ "chars": 100 }));
    assert_eq!(ok["result"]["isError"], false);
}

#[test]
fn a_duplicate_in_flight_id_is_refused() {
    let mut s = Server::ready(json!({}));
    s.request(1, "tools/call", json!({ "name": "sleep", "arguments": { "ms": 300 } }));
    s.request(1, "tools/call", json!({ "name": "sleep", "arguments": { "ms": 1 } }));
    let first = s.recv();
    assert_eq!(error_code(&first), -32600, "{first}");
    let second = s.response(1);
    assert_eq!(body(&second)["slept_ms"], 300);
}

#[test]
fn arguments_nested_too_deep_are_a_tool_error_and_other_messages_name_their_id() {
    let mut s = Server::ready(json!({}));
    let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"add_numbers","arguments":{{"a":{deep},"b":1}}}}}}"#
    );
    s.send_raw(format!("{call}\n").as_bytes());
    let r = s.response(3);
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert_eq!(body(&r)["violations"][0]["keyword"], "maxDepth");
    let other = format!(r#"{{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{{"name":{deep}}}}}"#);
    s.send_raw(format!("{other}\n").as_bytes());
    assert_eq!(error_code(&s.response(4)), -32602);
    s.request(5, "ping", json!({}));
    assert_eq!(s.response(5)["result"], json!({}), "the server goes on");
}
