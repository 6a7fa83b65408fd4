use serde_json::{Value, json};

use crate::support::Server;

/// Calls `tool`, answers the one request the server sends the client with `answer`, and returns
/// the server's request and the tool's result text.
fn round_trip(s: &mut Server, tool: &str, args: Value, answer: Value) -> (Value, String) {
    s.call_async(1, tool, args);
    let request = s.recv();
    assert!(request["id"].is_number() || request["id"].is_string(), "{request}");
    s.send(&json!({ "jsonrpc": "2.0", "id": request["id"], "result": answer }));
    let response = s.response(1);
    assert_eq!(response["result"]["isError"], false, "{response}");
    (request, response["result"]["content"][0]["text"].as_str().unwrap().to_owned())
}

impl Server {
    fn call_async(&mut self, id: i64, tool: &str, args: Value) {
        self.request(id, "tools/call", json!({ "name": tool, "arguments": args }));
    }
}

#[test]
fn sampling_goes_to_the_client_and_back() {
    let mut s = Server::ready(json!({ "sampling": {} }));
    let answer = json!({ "role": "assistant", "model": "m", "content": { "type": "text", "text": "forty-two" } });
    let (request, text) = round_trip(&mut s, "test_sampling", json!({ "prompt": "meaning?" }), answer);
    assert_eq!(request["method"], "sampling/createMessage");
    assert_eq!(request["params"]["messages"][0]["content"]["text"], "meaning?");
    assert_eq!(text, "LLM response: forty-two");
}

#[test]
fn elicitation_goes_to_the_client_and_back() {
    let mut s = Server::ready(json!({ "elicitation": {} }));
    let answer = json!({ "action": "accept", "content": { "username": "ada", "email": "a@b.c" } });
    let (request, text) = round_trip(&mut s, "test_elicitation", json!({ "message": "who?" }), answer);
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["requestedSchema"]["required"], json!(["username", "email"]));
    assert!(text.starts_with("User response: action=accept"), "{text}");
}

#[test]
fn without_the_capability_the_client_is_not_asked() {
    let mut s = Server::ready(json!({}));
    for (id, tool, args) in
        [(1, "test_sampling", json!({ "prompt": "x" })), (2, "test_elicitation", json!({ "message": "x" }))]
    {
        let r = s.call(id, tool, args);
        assert_eq!(r["result"]["isError"], true, "{r}");
        assert!(r["result"]["structuredContent"]["error"].as_str().unwrap().contains("capability"));
    }
}

#[test]
fn a_client_error_answer_becomes_a_tool_error() {
    let mut s = Server::ready(json!({ "sampling": {} }));
    s.call_async(1, "test_sampling", json!({ "prompt": "x" }));
    let request = s.recv();
    s.send(&json!({ "jsonrpc": "2.0", "id": request["id"], "error": { "code": -1, "message": "user said no" } }));
    let r = s.response(1);
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["structuredContent"]["error"].as_str().unwrap().contains("user said no"));
}
