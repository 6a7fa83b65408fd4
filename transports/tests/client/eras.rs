//! One scenario per transport and era.

use std::time::Duration;

use serde_json::{Map, Value, json};
use tooltable::context::Era;
use tooltable_transports::client::{Call, Client, ClientError, Event, Options, Target, Watch};

use crate::support::{Served, binary, serve};

const CONFORMANCE: &str = "conformance-server";

/// The client capabilities the scenarios declare, so the server's questions may be asked.
fn options(era: Era) -> Options {
    Options::default()
        .era(era)
        .capabilities(json!({ "sampling": {}, "elicitation": {}, "roots": {} }))
        .log_level("debug")
}

async fn stdio(era: Era) -> Client {
    let program = binary(CONFORMANCE).display().to_string();
    Client::connect(Target::command(program, ["mcp"]), options(era)).await.unwrap_or_else(|e| panic!("{e}"))
}

async fn http(era: Era) -> (Served, Client) {
    let served = serve(CONFORMANCE, &[]);
    let client = Client::connect(Target::url(format!("{}/mcp", served.url)), options(era)).await;
    (served, client.unwrap_or_else(|e| panic!("{e}")))
}

/// What an exchange heard before its result.
struct Heard {
    events: Vec<Event>,
    /// The methods of the questions asked, in order.
    asked: Vec<String>,
    outcome: Result<Value, ClientError>,
}

/// Drives an exchange to its end, every question answered by `answer`.
async fn run(client: &Client, method: &str, params: Value, answer: impl Fn(&str, &Value) -> Value) -> Heard {
    let mut exchange = client.start(method, params, Call::default());
    let (mut events, mut asked) = (Vec::new(), Vec::new());
    loop {
        match exchange.next().await {
            Event::Done(outcome) => return Heard { events, asked, outcome },
            Event::Input(input) => {
                asked.extend(input.questions.iter().map(|q| q.method.clone()));
                let answers: Map<String, Value> =
                    input.questions.iter().map(|q| (q.key.clone(), answer(&q.method, &q.params))).collect();
                exchange.answer(input, Ok(answers));
            }
            event => events.push(event),
        }
    }
}

fn nothing(_: &str, _: &Value) -> Value {
    json!({})
}

async fn scenario(client: Client) {
    let era = client.era();
    assert_eq!(client.server_info()["name"], CONFORMANCE, "{:?}", client.server());

    let tools = client.list_tools().await.unwrap();
    assert!(tools.iter().any(|t| t["name"] == "add_numbers"), "{era:?}: {tools:?}");

    let sum = client.request("tools/call", json!({ "name": "add_numbers", "arguments": { "a": 1, "b": 2 } })).await;
    assert_eq!(sum.unwrap()["structuredContent"], json!({ "sum": 3 }), "{era:?}");

    let slept =
        run(&client, "tools/call", json!({ "name": "sleep", "arguments": { "ms": 30, "steps": 3 } }), nothing).await;
    assert_eq!(slept.outcome.unwrap()["structuredContent"], json!({ "slept_ms": 30 }), "{era:?}");
    let progress: Vec<f64> = slept
        .events
        .iter()
        .filter_map(|e| if let Event::Progress { progress, .. } = e { Some(*progress) } else { None })
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0], "{era:?}: {:?}", slept.events);

    let logged =
        run(&client, "tools/call", json!({ "name": "test_tool_with_logging", "arguments": {} }), nothing).await;
    assert!(logged.outcome.is_ok(), "{era:?}: {:?}", logged.outcome);
    let logs = logged.events.iter().filter(|e| matches!(e, Event::Log { .. })).count();
    assert_eq!(logs, 3, "{era:?}: {:?}", logged.events);

    let reply = |method: &str, _: &Value| {
        assert_eq!(method, "sampling/createMessage");
        json!({ "role": "assistant", "model": "test", "content": { "type": "text", "text": "forty-two" } })
    };
    let sampled =
        run(&client, "tools/call", json!({ "name": "test_sampling", "arguments": { "prompt": "?" } }), reply).await;
    let result = sampled.outcome.unwrap_or_else(|e| panic!("{era:?}: {e}"));
    assert_eq!(result["content"][0]["text"], "LLM response: forty-two", "{era:?}");
    assert_eq!(sampled.asked, ["sampling/createMessage"], "{era:?}");

    // Over HTTP under a handshake the server closes the call's stream first: the client resumes
    // it with Last-Event-ID and gets the answer there.
    let resumed = client.request("tools/call", json!({ "name": "test_reconnection", "arguments": {} })).await;
    assert_eq!(resumed.unwrap()["content"][0]["text"], "Reconnection test completed successfully", "{era:?}");

    let sleep = json!({ "name": "sleep", "arguments": { "ms": 60000 } });
    let mut hung = client.start("tools/call", sleep, Call::default().timeout(Duration::from_millis(300)));
    let outcome = loop {
        if let Event::Done(outcome) = hung.next().await {
            break outcome;
        }
    };
    assert!(matches!(outcome, Err(ClientError::Timeout(_))), "{era:?}: {outcome:?}");

    let mut changes = client.changes(Watch { tools: true, ..Watch::default() }).await.unwrap();
    client.request("tools/call", json!({ "name": "add_tool", "arguments": { "name": "echo" } })).await.unwrap();
    let changed = tokio::time::timeout(Duration::from_secs(10), changes.next()).await.expect("a change within 10 s");
    assert_eq!(changed.unwrap().method, "notifications/tools/list_changed", "{era:?}");
    let tools = client.list_tools().await.unwrap();
    assert!(tools.iter().any(|t| t["name"] == "echo"), "{era:?}");
    client.close().await;
}

#[tokio::test]
async fn stdio_stateless() {
    let client = stdio(Era::Stateless).await;
    assert_eq!(client.era(), Era::Stateless);
    scenario(client).await;
}

#[tokio::test]
async fn stdio_handshake() {
    let client = stdio(Era::Handshake).await;
    assert_eq!(client.protocol_version(), "2025-11-25");
    scenario(client).await;
}

#[tokio::test]
async fn http_stateless() {
    let (_served, client) = http(Era::Stateless).await;
    scenario(client).await;
}

#[tokio::test]
async fn http_handshake() {
    let (_served, client) = http(Era::Handshake).await;
    scenario(client).await;
}
