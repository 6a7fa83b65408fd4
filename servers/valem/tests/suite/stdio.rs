//! The real binary over stdio: the seed's worked example, and bad input that must come back as
//! a clear `isError` result with the process alive and the model unchanged.

use crate::support::mcp_client;

use std::path::Path;

use serde_json::{Value, json};

/// The binary, started and past its handshake; calls answer `(isError, body)`.
struct Client(mcp_client::Client);

impl Client {
    fn start() -> Client {
        Client(mcp_client::Client::start(Path::new(env!("CARGO_BIN_EXE_valem")), &[]).expect("valem starts"))
    }

    fn call(&mut self, tool: &str, arguments: Value) -> (bool, Value) {
        let answer = self.0.call(tool, arguments).expect("the server answers");
        (answer.is_error, answer.body)
    }

    fn alive(&mut self) -> bool {
        self.0.request("ping", json!({})).is_ok_and(|r| r["result"] == json!({}))
    }
}

fn demo_spec() -> Value {
    json!({ "id": "demo", "version": "1", "schema": {}, "derivations": [{ "path": "$.total", "expr": "price * qty" }],
            "constraints": [], "metaDerivations": [], "tests": [] })
}

#[test]
fn the_worked_example() {
    let mut c = Client::start();
    let (err, info) = c.call("create_model", json!({ "spec": demo_spec() }));
    assert!(!err);
    assert_eq!(info["id"], "demo");
    assert_eq!(info["version"], "1");
    assert_eq!(info["derivationCount"], 1);
    let (err, result) = c.call("mutate", json!({ "id": "demo", "mutations": { "$.price": 10, "$.qty": 3 } }));
    assert!(!err);
    assert_eq!(result["success"], true);
    assert_eq!(result["derivedUpdated"], json!(["$.total"]));
    let (err, state) = c.call("get_state", json!({ "id": "demo" }));
    assert!(!err);
    assert_eq!(state.to_string(), r#"{"price":10,"qty":3,"total":30}"#);
}

/// A model with a read-only field, a derived field and a rollback constraint that never ends.
fn guarded_spec() -> Value {
    json!({
        "id": "guarded",
        "schema": { "type": "object", "properties": {
            "price": { "type": "number" }, "qty": { "type": "integer" },
            "code": { "type": "string", "readOnly": true, "default": "A1" },
            "total": { "type": "number", "readOnly": true }
        } },
        "derivations": [{ "path": "$.total", "expr": "price * qty" }],
        "constraints": [{ "id": "runaway", "expr": "qty > 100 ? ($f := function($x) { $f($x) }; $f(1)) : true",
                          "message": "never decides", "policy": "rollback" }]
    })
}

#[test]
fn bad_input_is_a_clear_tool_error_and_changes_nothing() {
    let mut c = Client::start();
    let (err, _) = c.call("create_model", json!({ "spec": guarded_spec() }));
    assert!(!err);
    let (err, _) = c.call("mutate", json!({ "id": "guarded", "mutations": { "$.price": 2, "$.qty": 3 } }));
    assert!(!err);
    let (_, before) = c.call("get_state", json!({ "id": "guarded" }));
    assert_eq!(before, json!({ "code": "A1", "price": 2, "qty": 3, "total": 6 }));

    let mut bad_schema = guarded_spec();
    bad_schema["schema"] = json!({ "type": "nonsense" });
    let (err, body) = c.call("create_model", json!({ "spec": bad_schema }));
    assert!(err);
    assert_eq!(body["error"], "Invalid spec");
    assert_eq!(body["errors"][0]["location"], "schema");

    let cases = [
        (json!({ "$.total": 1 }), "Schema violation", "readOnly"),
        (json!({ "$.code": "B2" }), "Schema violation", "readOnly"),
        (json!({ "$.qty": "three" }), "Schema violation", "type"),
        (json!({ "$.price": "x".repeat(2 * 1024 * 1024) }), "Value too large", ""),
        // The constraint never decides: the cycle's time runs out and it is undone.
        (json!({ "$.qty": 101 }), "Time limit exceeded", ""),
    ];
    for (mutations, error, keyword) in cases {
        let (err, body) = c.call("mutate", json!({ "id": "guarded", "mutations": mutations }));
        assert!(err, "{body}");
        assert_eq!(body["error"], error, "{body}");
        if !keyword.is_empty() {
            assert_eq!(body["violations"][0]["keyword"], keyword);
        }
        assert!(c.alive());
        assert_eq!(c.call("get_state", json!({ "id": "guarded" })).1, before);
    }

    let (err, body) = c.call("get_state", json!({ "id": "no-such-model" }));
    assert!(err);
    assert_eq!(body["error"], "Model not found");

    let (err, answer) = c.call("eval_expression", json!({ "expr": "($f := function($x) { 1 + $f($x) }; $f(1))" }));
    assert!(!err);
    assert_eq!(answer["ok"], false);
    assert!(answer["message"].as_str().unwrap().starts_with("D1011"), "{answer}");
    assert!(c.alive());
}

/// A value nested 10,000 deep arrives as raw bytes (building it as a `Value` here would recurse
/// as deep): a clear tool error, the model unchanged, the process alive.
#[test]
fn a_value_nested_10000_deep_is_a_tool_error() {
    use std::time::Duration;
    use tooltable_golden::client::{Client as Raw, StdioClient};
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut c = StdioClient::spawn(env!("CARGO_BIN_EXE_valem"), &["mcp"]).unwrap();
        let wait = Duration::from_secs(10);
        let lines = [
            json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-11-25", "capabilities": {} } }).to_string(),
            json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "create_model", "arguments": { "spec": guarded_spec() } } }).to_string(),
            format!(
                r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"mutate","arguments":{{"id":"guarded","mutations":{{"$.price":{}1{}}}}}}}}}"#,
                "[".repeat(10_000),
                "]".repeat(10_000)
            ),
            json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": { "name": "get_state", "arguments": { "id": "guarded" } } }).to_string(),
        ];
        // Calls run side by side: the model exists once create_model has answered.
        for line in &lines[..2] {
            c.send_line(line.as_bytes()).await.unwrap();
        }
        let mut c = Raw::Stdio(c);
        c.until_response(&json!(2), wait).await.unwrap();
        if let Raw::Stdio(stdio) = &mut c {
            for line in &lines[2..] {
                stdio.send_line(line.as_bytes()).await.unwrap();
            }
        }
        let (_, deep) = c.until_response(&json!(3), wait).await.unwrap();
        assert_eq!(deep["result"]["isError"], true, "{deep}");
        assert_eq!(deep["result"]["structuredContent"]["violations"][0]["keyword"], "maxDepth");
        let (_, state) = c.until_response(&json!(4), wait).await.unwrap();
        assert_eq!(state["result"]["isError"], false, "the model is there, unchanged: {state}");
        assert!(state["result"]["structuredContent"].get("price").is_none());
    });
}
