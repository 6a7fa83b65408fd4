//! JSON-RPC batches: taken by a session of revision 2025-03-26, answered with one array; refused
//! by the revisions before and after it.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use support::Sent;
use tooltable::transport::Destination;
use tooltable::{Cx, Error, Server, table, tool};

mod support;

type Peer = support::Peer<()>;

#[derive(Deserialize, JsonSchema)]
struct Wait {
    ms: u64,
}

/// Answers after `ms` milliseconds, telling its progress first.
#[tool]
async fn slow(cx: &Cx<()>, args: Wait) -> Result<Value, Error> {
    cx.progress(1.0, None, None);
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    Ok(json!({ "waited": args.ms }))
}

fn server() -> Server<()> {
    Server::builder(()).tools(table![slow]).build().unwrap()
}

/// A session of `version`, the handshake's messages read.
async fn peer(version: &str) -> Peer {
    let mut p = Peer::initialized_as(&server(), version, json!({}));
    let (answer, _) = p.next().await;
    assert_eq!(answer["result"]["protocolVersion"], version);
    p.received();
    p
}

fn call(id: i64, ms: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": "slow", "arguments": { "ms": ms }, "_meta": { "progressToken": id } } })
}

/// The next message that is no notification.
async fn answer(p: &mut Peer) -> (Value, Sent) {
    loop {
        let (msg, route) = p.next().await;
        if msg.get("method").is_none() {
            return (msg, route);
        }
    }
}

#[tokio::test]
async fn a_batch_is_answered_with_one_array_in_the_order_of_its_requests() {
    let mut p = peer("2025-03-26").await;
    let batch = json!([
        call(1, 200),
        { "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 99 } },
        { "jsonrpc": "2.0", "id": 2, "method": "ping" },
        7,
        call(3, 0),
    ]);
    p.send(batch);
    let (array, route) = answer(&mut p).await;
    assert_eq!(route, Sent::To(Destination::Session));
    let ids: Vec<&Value> =
        array.as_array().unwrap_or_else(|| panic!("an array: {array}")).iter().map(|r| &r["id"]).collect();
    assert_eq!(ids, [&json!(1), &json!(2), &Value::Null, &json!(3)], "{array}");
    assert!(array[0]["result"]["content"][0]["text"].as_str().unwrap().contains("200"), "{array}");
    assert_eq!(array[1]["result"], json!({}));
    assert_eq!(array[2]["error"]["code"], -32600);
    assert!(p.quiet_for(Duration::from_millis(50)).await, "nothing after the array");
}

#[tokio::test]
async fn a_batch_of_notifications_is_answered_with_nothing() {
    let mut p = peer("2025-03-26").await;
    p.send(json!([{ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }]));
    assert!(p.quiet_for(Duration::from_millis(100)).await);
    p.send(json!({ "jsonrpc": "2.0", "id": 5, "method": "ping" }));
    assert_eq!(p.response(5).await["result"], json!({}));
}

#[tokio::test]
async fn a_cancelled_member_is_left_out_of_the_array() {
    let mut p = peer("2025-03-26").await;
    p.send(json!([call(1, 10_000), call(2, 0)]));
    p.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 1 } }));
    let (array, _) = answer(&mut p).await;
    assert_eq!(array.as_array().map(Vec::len), Some(1), "{array}");
    assert_eq!(array[0]["id"], 2);
}

#[tokio::test]
async fn a_batch_whose_ids_repeat_or_run_already_is_refused_whole() {
    let mut p = peer("2025-03-26").await;
    p.send(json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }, { "jsonrpc": "2.0", "id": 1, "method": "ping" }]));
    let (refusal, _) = answer(&mut p).await;
    assert_eq!((refusal["id"].clone(), refusal["error"]["code"].clone()), (Value::Null, json!(-32600)));
    assert!(refusal["error"]["message"].as_str().unwrap().contains("appears twice"), "{refusal}");
    p.send(call(4, 10_000));
    p.send(json!([{ "jsonrpc": "2.0", "id": 4, "method": "ping" }]));
    let (refusal, _) = answer(&mut p).await;
    assert!(refusal["error"]["message"].as_str().unwrap().contains("already in flight"), "{refusal}");
}

#[tokio::test]
async fn a_batch_over_the_bound_is_refused() {
    let mut p = peer("2025-03-26").await;
    let pings: Vec<Value> = (0..=100).map(|id| json!({ "jsonrpc": "2.0", "id": id, "method": "ping" })).collect();
    p.send(Value::Array(pings));
    let (refusal, _) = answer(&mut p).await;
    assert_eq!(refusal["error"]["code"], -32600);
    assert!(refusal["error"]["message"].as_str().unwrap().contains("limit of 100"), "{refusal}");
}

#[tokio::test]
async fn other_revisions_refuse_a_batch_with_a_clear_error() {
    for version in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut p = peer(version).await;
        p.send(json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }]));
        let (refusal, _) = answer(&mut p).await;
        assert_eq!(refusal["error"]["code"], -32600, "{version}");
        assert!(refusal["error"]["message"].as_str().unwrap().contains("only 2025-03-26"), "{version}: {refusal}");
    }
}

#[tokio::test]
async fn closing_the_session_ends_a_batch_unanswered() {
    let p = peer("2025-03-26").await;
    let members = tooltable::transport::jsonrpc::decode_batch(format!("[{}]", call(1, 10_000)).as_bytes());
    let rx = p.session.handle_batch(vec![members.unwrap().remove(0)], &support::CONTEXT);
    p.session.close();
    assert!(rx.await.is_err(), "the receiver sees the session closed");
}
