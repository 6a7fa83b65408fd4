//! The real binary over stdio: the seed's worked example, and bad input that must come back as
//! a clear `isError` result with the process alive and the model unchanged.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// A newline-delimited JSON-RPC client of `valem mcp`.
struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_valem"))
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("valem starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut client = Client { child, stdin, stdout, next_id: 1 };
        let init = client.request("initialize", json!({ "protocolVersion": "2025-06-18", "capabilities": {} }));
        assert_eq!(init["result"]["serverInfo"]["name"], "valem");
        client.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        client
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and reads lines until its response (notifications are skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "the server closed stdout");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// Calls a tool; gives (isError, structuredContent or the parsed text).
    fn call(&mut self, tool: &str, arguments: Value) -> (bool, Value) {
        let response = self.request("tools/call", json!({ "name": tool, "arguments": arguments }));
        let result = &response["result"];
        let body = match result.get("structuredContent") {
            Some(v) => v.clone(),
            None => serde_json::from_str(result["content"][0]["text"].as_str().unwrap_or("null")).unwrap_or(Value::Null),
        };
        (result["isError"] == json!(true), body)
    }

    fn alive(&mut self) -> bool {
        self.request("ping", json!({}))["result"] == json!({})
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
        (json!({ "$.price": "x".repeat(10 * 1024 * 1024) }), "Value too large", ""),
        (json!({ "$.qty": 101 }), "Constraint violation", ""),
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
