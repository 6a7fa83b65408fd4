//! JSON-RPC batches over Streamable HTTP: a session of revision 2025-03-26 answers one with the
//! array of its responses; the later revisions refuse it.

use std::time::Duration;

use serde_json::{Value, json};
use tooltable_transports::http::HttpOptions;

use crate::mcp::{initialize, initialize_as, post};
use crate::support::start;

fn sleep(id: i64, ms: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": "slow", "arguments": { "ms": ms } } })
}

#[tokio::test]
async fn a_batch_of_requests_is_answered_with_an_array_of_responses() {
    let s = start(HttpOptions::default()).await;
    let session = initialize_as(s.addr, "2025-03-26").await;
    let batch = json!([sleep(1, 100), { "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }, { "jsonrpc": "2.0", "id": "p", "method": "ping" }]);
    let r = post(s.addr, Some(&session), batch).await;
    assert_eq!((r.status, r.header("content-type")), (200, Some("application/json")));
    let array = r.json();
    let ids: Vec<&Value> =
        array.as_array().unwrap_or_else(|| panic!("an array: {array}")).iter().map(|m| &m["id"]).collect();
    assert_eq!(ids, [&json!(1), &json!("p")]);
    assert!(array[0]["result"]["content"][0]["text"].as_str().unwrap().contains("100"), "{array}");
}

#[tokio::test]
async fn a_batch_without_requests_is_accepted_with_202() {
    let s = start(HttpOptions::default()).await;
    let session = initialize_as(s.addr, "2025-03-26").await;
    let r =
        post(s.addr, Some(&session), json!([{ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }])).await;
    assert_eq!(r.status, 202);
    assert!(r.body.is_empty());
}

#[tokio::test]
async fn a_batch_reusing_an_id_in_flight_is_refused_with_409() {
    let s = start(HttpOptions::default()).await;
    let session = initialize_as(s.addr, "2025-03-26").await;
    let (addr, sid) = (s.addr, session.clone());
    let batch = tokio::spawn(async move { post(addr, Some(&sid), json!([sleep(3, 300)])).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let duplicate = post(s.addr, Some(&session), sleep(3, 0)).await;
    assert_eq!(duplicate.status, 409, "the batch holds id 3");
    assert_eq!(batch.await.unwrap().json()[0]["id"], 3);
    assert_eq!(post(s.addr, Some(&session), sleep(3, 0)).await.status, 200, "released once answered");
}

#[tokio::test]
async fn later_revisions_refuse_a_batch() {
    let s = start(HttpOptions::default()).await;
    let session = initialize(s.addr).await;
    let r = post(s.addr, Some(&session), json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }])).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32600);
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("only 2025-03-26"));
}
