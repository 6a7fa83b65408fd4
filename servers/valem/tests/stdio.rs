//! The real binary over stdio: the seed's worked example, and bad input that must come back as
//! a clear `isError` result with the process alive and the model unchanged.

#[path = "support/mcp_client.rs"]
mod mcp_client;

use std::path::Path;

use serde_json::{Value, json};

/// The binary, started and past its handshake; calls answer `(isError, body)`.
struct Client(mcp_client::Client);

impl Client {
    fn start() -> Client {
        Client(mcp_client::Client::start(Path::new(env!("CARGO_BIN_EXE_valem"))).expect("valem starts"))
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
