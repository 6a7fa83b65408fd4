//! An upstream that dies: its tools' calls are tool errors naming it, the other upstream's work
//! on, and once it is back its tools answer again.

use std::time::Duration;

use serde_json::{Value, json};
use tooltable::context::Era;
use tooltable_transports::client::Client;

use crate::support::{Entities, call, mounts, over_http, over_stdio, signal, until};

/// How long the gateway may take to notice, and to reconnect.
const WITHIN: Duration = Duration::from_secs(10);

async fn entity_list(client: &Client) -> Value {
    call(client, "ent_entity_list", json!({})).await
}

async fn scenario(mut entities: Entities, client: Client) {
    assert_eq!(entity_list(&client).await["isError"], false);

    entities.process.kill();
    let failure = until(WITHIN, "a tool error naming the upstream", async || {
        let result = entity_list(&client).await;
        // The tool's outputSchema does not admit the body: it is in the text alone.
        error_body(&result).ok_or_else(|| result.to_string())
    })
    .await;
    assert_eq!(failure["upstream"], "ent", "{failure}");
    assert!(["unavailable", "unreachable", "closed"].contains(&failure["reason"].as_str().unwrap_or("")), "{failure}");
    let message = failure["error"].as_str().unwrap_or_default();
    assert!(message.starts_with(&format!("the upstream ent ({})", entities.url)), "{message}");
    let sum = call(&client, "conf_add_numbers", json!({ "a": 1, "b": 2 })).await;
    assert_eq!(sum["structuredContent"], json!({ "sum": 3 }), "the other upstream is served on");

    entities.restart();
    until(WITHIN, "the upstream's tools answering again", async || {
        let result = entity_list(&client).await;
        match result["isError"] == false {
            true => Ok(()),
            false => Err(result.to_string()),
        }
    })
    .await;
    client.close().await;
}

#[tokio::test]
async fn a_stateless_upstream_that_dies_is_named_then_served_again() {
    let entities = Entities::start();
    let client = over_stdio(mounts(&entities, &[]), Era::Stateless).await;
    scenario(entities, client).await;
}

#[tokio::test]
async fn a_handshake_upstream_that_dies_is_named_then_served_again() {
    let entities = Entities::start();
    let client = over_stdio(mounts(&entities, &["--upstream-era", "handshake"]), Era::Handshake).await;
    scenario(entities, client).await;
}

/// The body of a tool error whose outputSchema does not admit it: the text, as JSON.
fn error_body(result: &Value) -> Option<Value> {
    let text = result["content"][0]["text"].as_str()?;
    (result["isError"] == true).then(|| serde_json::from_str(text).ok()).flatten()
}

#[tokio::test]
async fn a_command_upstream_that_exits_is_started_again() {
    let entities = Entities::start();
    let (gateway, client) = over_http(mounts(&entities, &[]), Era::Stateless).await;
    let add = async || call(&client, "conf_add_numbers", json!({ "a": 1, "b": 2 })).await;
    assert_eq!(add().await["structuredContent"], json!({ "sum": 3 }));
    let conformance = gateway.children();
    assert_eq!(conformance.len(), 1, "the gateway runs the conformance server: {conformance:?}");
    signal(conformance[0], "KILL");

    let failure = until(WITHIN, "a tool error naming the upstream", async || {
        let result = add().await;
        error_body(&result).ok_or_else(|| result.to_string())
    })
    .await;
    assert_eq!(failure["upstream"], "conf", "{failure}");
    assert!(failure["error"].as_str().unwrap_or_default().starts_with("the upstream conf (`"), "{failure}");
    assert_eq!(call(&client, "ent_entity_list", json!({})).await["isError"], false, "the other upstream is served on");

    until(WITHIN, "the upstream started again", async || {
        let result = add().await;
        (result["structuredContent"] == json!({ "sum": 3 })).then_some(()).ok_or_else(|| result.to_string())
    })
    .await;
    let restarted = gateway.children();
    assert!(restarted.len() == 1 && restarted != conformance, "{restarted:?}");
    client.close().await;
}

#[tokio::test]
async fn a_command_upstream_that_stops_answering_is_a_timeout_then_started_again() {
    let entities = Entities::start();
    let (gateway, client) = over_http(mounts(&entities, &["--call-timeout-secs", "1"]), Era::Handshake).await;
    let add = async || call(&client, "conf_add_numbers", json!({ "a": 1, "b": 2 })).await;
    assert_eq!(add().await["structuredContent"], json!({ "sum": 3 }));
    let conformance = gateway.children();
    assert_eq!(conformance.len(), 1, "{conformance:?}");
    // Stopped, not dead: its pipes stay open, it answers nothing.
    signal(conformance[0], "STOP");

    let failure = error_body(&add().await).expect("a tool error once the call's deadline passed");
    assert_eq!(failure["upstream"], "conf", "{failure}");
    assert_eq!(failure["reason"], "timeout", "{failure}");

    // The probe finds it silent; it is stopped and started again.
    until(Duration::from_secs(40), "the upstream started again", async || {
        let result = add().await;
        (result["structuredContent"] == json!({ "sum": 3 })).then_some(()).ok_or_else(|| result.to_string())
    })
    .await;
    assert_ne!(gateway.children(), conformance);
    client.close().await;
}
