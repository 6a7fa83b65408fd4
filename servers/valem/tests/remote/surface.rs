//! Remote mode lists what the embedded server lists and answers what it answers, errors
//! included; with the server gone or silent, model tools fail naming the URL while the
//! authoring tools go on working.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::mcp_client::Client;
use crate::served::Served;

fn remote(served: &Served) -> Client {
    Client::start(crate::valem(), &["--url", &served.url]).expect("remote mode starts")
}

fn embedded() -> Client {
    Client::start(crate::valem(), &[]).expect("valem mcp starts")
}

fn result(client: &mut Client, method: &str, params: Value) -> Value {
    let answer = client.request(method, params).expect("an answer");
    answer.get("result").cloned().unwrap_or_else(|| panic!("{method}: {answer}"))
}

#[test]
fn tools_and_resources_are_listed_as_the_embedded_server_lists_them() {
    let served = Served::start(crate::valem(), &[]);
    let (mut remote, mut embedded) = (remote(&served), embedded());
    for method in ["tools/list", "resources/list", "resources/templates/list"] {
        let listed = result(&mut remote, method, json!({}));
        assert_eq!(listed, result(&mut embedded, method, json!({})), "{method}");
    }
    let tools = result(&mut remote, "tools/list", json!({}));
    assert_eq!(tools["tools"].as_array().map(Vec::len), Some(25));
}

/// Calls whose answers, successes and structured errors alike, must not change across the hop.
fn calls() -> Vec<(&'static str, Value)> {
    let spec = json!({
        "id": "order", "version": "1",
        "schema": { "type": "object", "properties": { "qty": { "type": "integer", "minimum": 0 }, "price": { "type": "number" } } },
        "derivations": [{ "path": "$.total", "expr": "price * qty" }],
    });
    vec![
        ("create_model", json!({ "spec": spec })),
        (
            "create_model",
            json!({ "spec": { "id": "bad", "schema": {}, "derivations": [{ "path": "$.x", "expr": "((" }] } }),
        ),
        ("mutate", json!({ "id": "order", "mutations": { "$.qty": 4, "$.price": 2.5 } })),
        ("mutate", json!({ "id": "order", "mutations": { "$.qty": -1 } })),
        ("mutate", json!({ "id": "order", "mutations": { "$.qty": "four" } })),
        ("get_state", json!({ "id": "order" })),
        ("get_state", json!({ "id": "order", "paths": ["$.total"], "depth": 1 })),
        ("get_field", json!({ "id": "order", "path": "$.total" })),
        ("get_field", json!({ "id": "order", "path": "$.nothing" })),
        ("patch_model", json!({ "id": "order", "patch": [{ "op": "replace", "path": "/price", "value": 3 }] })),
        ("evolve_spec", json!({ "id": "order", "evolution": { "expectedVersion": "0", "newVersion": "2" } })),
        ("get_model_info", json!({ "id": "nobody" })),
        ("list_models", json!({})),
        ("validate_spec", json!({ "spec": { "id": "x" } })),
        ("eval_expression", json!({ "expr": "1 + 2" })),
        ("delete_model", json!({ "id": "order" })),
        ("get_state", json!({ "id": "order" })),
    ]
}

#[test]
fn model_tools_answer_as_the_embedded_server_answers_errors_included() {
    let served = Served::start(crate::valem(), &[]);
    let (mut remote, mut embedded) = (remote(&served), embedded());
    let mut errors = Vec::new();
    for (tool, arguments) in calls() {
        let params = json!({ "name": tool, "arguments": arguments });
        let expected = result(&mut embedded, "tools/call", params.clone());
        assert_eq!(result(&mut remote, "tools/call", params), expected, "{tool} {arguments}");
        if expected["isError"] == true {
            errors.push(expected["structuredContent"]["error"].as_str().unwrap_or_default().to_owned());
        }
    }
    // The server's own structured errors crossed the hop, not only the local argument check's.
    for error in ["Invalid spec", "Schema violation", "Version conflict", "Model not found"] {
        assert!(errors.iter().any(|e| e == error), "no {error:?} among {errors:?}");
    }
}

#[test]
fn with_the_server_down_model_tools_fail_naming_the_url_and_authoring_tools_work() {
    let mut served = Served::start(crate::valem(), &[]);
    let mut client = remote(&served);
    served.stop();
    let failed = client.call("get_state", json!({ "id": "m" })).unwrap();
    assert!(failed.is_error);
    assert_eq!(failed.body["reason"], "unreachable", "{}", failed.body);
    assert_eq!(failed.body["url"], format!("{}/models/m/state", served.url));
    assert!(failed.body["error"].as_str().unwrap().starts_with(&served.url), "{}", failed.body);
    let evaluated = client.call("eval_expression", json!({ "expr": "2 * 21" })).unwrap();
    assert!(!evaluated.is_error, "{}", evaluated.body);
    for uri in ["valem://guide/model-spec-format", "valem://schema/model-spec", "valem://examples/loan-payment"] {
        let read = client.request("resources/read", json!({ "uri": uri })).unwrap();
        assert!(read["result"]["contents"][0]["text"].is_string(), "{uri} is read in process: {read}");
    }
    let state = client.request("resources/read", json!({ "uri": "valem://state/m" })).unwrap();
    assert_eq!(state["error"]["data"]["reason"], "unreachable", "{state}");
}

#[test]
fn a_server_that_never_answers_is_a_timeout_not_a_hang() {
    // Connections are accepted by the kernel (the backlog) and never answered.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let mut client =
        Client::start(crate::valem(), &["--url", &url, "--forward-timeout-secs", "1"]).expect("remote mode starts");
    let started = Instant::now();
    let failed = client.call("list_models", json!({})).unwrap();
    assert!(failed.is_error);
    assert_eq!(failed.body["reason"], "timeout", "{}", failed.body);
    assert_eq!(failed.body["url"], format!("{url}/models"));
    assert!(started.elapsed() < Duration::from_secs(30), "bounded by the deadline");
}

#[test]
fn a_subscription_hears_of_changes_made_through_the_server_by_anyone() {
    let served = Served::start(crate::valem(), &[]);
    let (mut watcher, mut writer) = (remote(&served), remote(&served));
    let spec = json!({ "id": "watched", "schema": { "type": "object", "properties": { "a": { "type": "number" } } } });
    assert!(!writer.call("create_model", json!({ "spec": spec })).unwrap().is_error);
    result(&mut watcher, "resources/subscribe", json!({ "uri": "valem://state/watched" }));
    // The follower subscribes upstream on its own time: write until the watcher hears of it.
    for attempt in 0..50 {
        assert!(!writer.call("mutate", json!({ "id": "watched", "mutations": { "$.a": attempt } })).unwrap().is_error);
        std::thread::sleep(Duration::from_millis(100));
        result(&mut watcher, "ping", json!({}));
        let heard = watcher
            .notifications()
            .iter()
            .any(|n| n["method"] == "notifications/resources/updated" && n["params"]["uri"] == "valem://state/watched");
        if heard {
            let state = result(&mut watcher, "resources/read", json!({ "uri": "valem://state/watched" }));
            let text = state["contents"][0]["text"].as_str().unwrap();
            assert_eq!(serde_json::from_str::<Value>(text).unwrap()["a"], json!(attempt));
            return;
        }
    }
    panic!("no notifications/resources/updated reached the subscriber");
}
