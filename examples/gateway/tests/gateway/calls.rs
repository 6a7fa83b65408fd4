//! Calls through the gateway: each upstream's tools under its prefix, their results, errors,
//! progress, logs and questions as the upstream gave them, and a tool the upstream adds.

use std::time::Duration;

use serde_json::{Map, Value, json};
use tooltable::context::Era;
use tooltable_transports::client::{Call, Client, ClientError, Event, Watch};

use crate::support::{Entities, call, mounts, over_http, over_stdio, until};

/// What a call heard before its result.
struct Heard {
    progress: Vec<f64>,
    logs: usize,
    /// The methods of the questions asked, in order.
    asked: Vec<String>,
    outcome: Result<Value, ClientError>,
}

/// Drives a call to its end, answering sampling and elicitation the way a host would.
async fn heard(client: &Client, tool: &str, arguments: Value) -> Heard {
    let params = json!({ "name": tool, "arguments": arguments });
    let mut exchange = client.start("tools/call", params, Call::default());
    let mut heard = Heard { progress: Vec::new(), logs: 0, asked: Vec::new(), outcome: Ok(Value::Null) };
    loop {
        match exchange.next().await {
            Event::Done(outcome) => return Heard { outcome, ..heard },
            Event::Progress { progress, .. } => heard.progress.push(progress),
            Event::Log { .. } => heard.logs += 1,
            Event::Input(input) => {
                let answers: Map<String, Value> = input
                    .questions
                    .iter()
                    .map(|q| {
                        heard.asked.push(q.method.clone());
                        let answer = match q.method.as_str() {
                            "sampling/createMessage" => json!({
                                "role": "assistant", "model": "test",
                                "content": { "type": "text", "text": "forty-two" },
                            }),
                            _ => json!({ "action": "accept", "content": { "username": "ada", "email": "ada@example.com" } }),
                        };
                        (q.key.clone(), answer)
                    })
                    .collect();
                exchange.answer(input, Ok(answers));
            }
            Event::Notification(_) => {}
        }
    }
}

async fn scenario(client: Client) {
    let era = client.era();
    let tools = client.list_tools().await.unwrap();
    let add = tools.iter().find(|t| t["name"] == "conf_add_numbers").unwrap_or_else(|| panic!("{era:?}: {tools:?}"));
    assert_eq!(add["title"], "Add numbers", "{era:?}: the upstream's descriptor");
    assert!(add.get("outputSchema").is_some(), "{era:?}");
    assert!(tools.iter().any(|t| t["name"] == "ent_entity_list"), "{era:?}: {tools:?}");
    assert!(!tools.iter().any(|t| t["name"] == "add_numbers"), "{era:?}: every tool is under its prefix");

    let sum = call(&client, "conf_add_numbers", json!({ "a": 1, "b": 2 })).await;
    assert_eq!(sum["structuredContent"], json!({ "sum": 3 }), "{era:?}");
    assert_eq!(sum["content"][0]["text"], "{\n  \"sum\": 3\n}", "{era:?}");

    let entities = call(&client, "ent_entity_list", json!({})).await;
    assert_eq!(entities["isError"], false, "{era:?}: {entities}");
    assert!(entities["structuredContent"].is_object(), "{era:?}: {entities}");

    let failed = call(&client, "conf_test_error_handling", json!({})).await;
    assert_eq!(failed["isError"], true, "{era:?}");
    assert_eq!(
        failed["content"][0]["text"], "{\n  \"error\": \"This tool intentionally returns an error for testing\"\n}",
        "{era:?}: the upstream's error as it gave it"
    );

    let slept = heard(&client, "conf_sleep", json!({ "ms": 30, "steps": 3 })).await;
    assert_eq!(slept.outcome.unwrap()["structuredContent"], json!({ "slept_ms": 30 }), "{era:?}");
    assert_eq!(slept.progress, [1.0, 2.0, 3.0], "{era:?}: the upstream's progress is passed on");

    let logged = heard(&client, "conf_test_tool_with_logging", json!({})).await;
    assert!(logged.outcome.is_ok(), "{era:?}: {:?}", logged.outcome);
    assert_eq!(logged.logs, 3, "{era:?}: the upstream's logs are passed on");

    let sampled = heard(&client, "conf_test_sampling", json!({ "prompt": "?" })).await;
    let result = sampled.outcome.unwrap_or_else(|e| panic!("{era:?}: {e}"));
    assert_eq!(result["content"][0]["text"], "LLM response: forty-two", "{era:?}");
    assert_eq!(sampled.asked, ["sampling/createMessage"], "{era:?}: the upstream's question reached this client");

    let elicited = heard(&client, "conf_test_elicitation", json!({ "message": "Who?" })).await;
    let result = elicited.outcome.unwrap_or_else(|e| panic!("{era:?}: {e}"));
    assert_eq!(
        result["content"][0]["text"],
        r#"User response: action=accept, content={"username":"ada","email":"ada@example.com"}"#,
        "{era:?}"
    );

    // A call abandoned (here by its deadline) is cancelled upstream; the gateway goes on.
    let sleep = json!({ "name": "conf_sleep", "arguments": { "ms": 60000 } });
    let mut abandoned = client.start("tools/call", sleep, Call::default().timeout(Duration::from_millis(200)));
    let outcome = loop {
        if let Event::Done(outcome) = abandoned.next().await {
            break outcome;
        }
    };
    assert!(matches!(outcome, Err(ClientError::Timeout(_))), "{era:?}: {outcome:?}");
    let sum = call(&client, "conf_add_numbers", json!({ "a": 2, "b": 2 })).await;
    assert_eq!(sum["structuredContent"], json!({ "sum": 4 }), "{era:?}");

    // A tool the upstream adds is the gateway's after the upstream's list_changed.
    let mut changes = client.changes(Watch { tools: true, ..Watch::default() }).await.unwrap();
    call(&client, "conf_add_tool", json!({ "name": "echo" })).await;
    until(Duration::from_secs(10), "conf_echo listed", async || {
        let _ = tokio::time::timeout(Duration::from_millis(500), changes.next()).await;
        let tools = client.list_tools().await.map_err(|e| e.to_string())?;
        tools.iter().any(|t| t["name"] == "conf_echo").then_some(()).ok_or_else(|| format!("{} tools", tools.len()))
    })
    .await;
    let echoed = call(&client, "conf_echo", json!({ "text": "hi" })).await;
    assert_eq!(echoed["structuredContent"], json!({ "echo": { "text": "hi" } }), "{era:?}");
    client.close().await;
}

#[tokio::test]
async fn over_stdio_to_a_stateless_client() {
    let entities = Entities::start();
    scenario(over_stdio(mounts(&entities, &[]), Era::Stateless).await).await;
}

#[tokio::test]
async fn over_stdio_to_a_handshake_client() {
    let entities = Entities::start();
    scenario(over_stdio(mounts(&entities, &[]), Era::Handshake).await).await;
}

#[tokio::test]
async fn over_http_to_a_stateless_client_with_handshake_upstreams() {
    let entities = Entities::start();
    let (_gateway, client) = over_http(mounts(&entities, &["--upstream-era", "handshake"]), Era::Stateless).await;
    scenario(client).await;
}

#[tokio::test]
async fn over_http_to_a_handshake_client_with_handshake_upstreams() {
    let entities = Entities::start();
    let (_gateway, client) = over_http(mounts(&entities, &["--upstream-era", "handshake"]), Era::Handshake).await;
    scenario(client).await;
}
