//! Under load: cycles run on the evaluation pool, so a long mutate delays neither a `ping` nor
//! work on another model, and a cancelled mutate stops at once and is undone.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tooltable_golden::client::{Client as Raw, StdioClient};
use valem::options::Limits;

use crate::support::busy;

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": tool, "arguments": arguments } })
}

/// `valem mcp` with a cycle time limit long enough for the busy cycles, past its handshake and
/// with the busy model `busy` created.
async fn started() -> Raw {
    let c = StdioClient::spawn(env!("CARGO_BIN_EXE_valem"), &["mcp", "--cycle-timeout-ms", "120000"]).unwrap();
    let mut c = Raw::Stdio(c);
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": { "protocolVersion": "2025-11-25", "capabilities": {} } });
    c.send(&init).await.unwrap();
    c.until_response(&json!(1), Duration::from_secs(30)).await.unwrap();
    c.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await.unwrap();
    c.send(&call(2, "create_model", json!({ "spec": busy::spec("busy") }))).await.unwrap();
    let (_, created) = c.until_response(&json!(2), Duration::from_secs(30)).await.unwrap();
    assert_eq!(created["result"]["isError"], false, "{created}");
    c
}

fn answers(messages: &[Value], id: u64) -> bool {
    messages.iter().any(|m| m["id"] == json!(id))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

#[test]
fn a_ping_is_answered_while_a_long_mutate_runs() {
    runtime().block_on(async {
        let mut c = started().await;
        c.send(&call(3, "mutate", busy::mutate("busy", 5_000))).await.unwrap();
        c.send(&json!({ "jsonrpc": "2.0", "id": 4, "method": "ping" })).await.unwrap();
        let (before, ping) = c.until_response(&json!(4), Duration::from_secs(30)).await.unwrap();
        assert_eq!(ping["result"], json!({}), "{ping}");
        assert!(!answers(&before, 3), "the ping waited for the mutate: {before:?}");
        let (_, done) = c.until_response(&json!(3), Duration::from_secs(120)).await.unwrap();
        assert_eq!(done["result"]["structuredContent"]["success"], true, "{done}");
    });
}

#[test]
fn a_cancelled_mutate_stops_at_once_and_is_undone() {
    runtime().block_on(async {
        let mut c = started().await;
        c.send(&call(3, "mutate", busy::mutate("busy", 60_000))).await.unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 3 } });
        c.send(&cancel).await.unwrap();
        let cancelled_at = Instant::now();
        // The model's lock is free again only once the cancelled cycle has stopped.
        c.send(&call(4, "get_state", json!({ "id": "busy" }))).await.unwrap();
        let (before, state) = c.until_response(&json!(4), Duration::from_secs(60)).await.unwrap();
        assert!(cancelled_at.elapsed() < Duration::from_secs(30), "the cancelled cycle ran on");
        assert!(!answers(&before, 3), "a cancelled request gets no response: {before:?}");
        assert_eq!(state["result"]["structuredContent"], json!({ "waited": 0 }), "the cycle was undone: {state}");
    });
}

#[test]
fn work_on_one_model_never_waits_for_another() {
    let limits = Limits { cycle_timeout_ms: 120_000, eval_threads: 2, ..Limits::default() };
    let server = valem::server_with(limits).unwrap();
    runtime().block_on(async {
        for id in ["slow", "quick"] {
            server.call("create_model", json!({ "spec": busy::spec(id) })).await.unwrap();
        }
        let slow = {
            let server = server.clone();
            tokio::spawn(async move { server.call("mutate", busy::mutate("slow", 5_000)).await })
        };
        tokio::time::sleep(Duration::from_millis(200)).await;
        let read = server.call("get_state", json!({ "id": "quick" })).await.unwrap();
        assert_eq!(read, json!({ "waited": 0 }));
        server.call("mutate", busy::mutate("quick", 1)).await.unwrap();
        assert_eq!(server.call("list_models", json!({})).await.unwrap(), json!(["quick", "slow"]));
        assert!(!slow.is_finished(), "the other model's work waited for the slow cycle");
        let slow = slow.await.unwrap().unwrap();
        assert_eq!(slow["success"], true);
    });
}

#[test]
fn a_spec_of_many_slow_tests_lets_other_calls_through() {
    // One evaluation thread: the other call gets it between two of the spec's cases.
    let limits = Limits { cycle_timeout_ms: 120_000, eval_threads: 1, ..Limits::default() };
    let server = valem::server_with(limits).unwrap();
    runtime().block_on(async {
        let cases: Vec<Value> =
            (0..6).map(|_| json!({ "given": { "$.ms": 500 }, "expect": { "$.waited": 500 } })).collect();
        let tests = {
            let server = server.clone();
            tokio::spawn(
                async move { server.call("test_spec", json!({ "spec": busy::spec("t"), "tests": cases })).await },
            )
        };
        tokio::time::sleep(Duration::from_millis(200)).await;
        let answer = server.call("eval_expression", json!({ "expr": "1 + 1" })).await.unwrap();
        assert_eq!(answer["result"], 2);
        assert!(!tests.is_finished(), "the evaluation waited for every case");
        let report = tests.await.unwrap().unwrap();
        assert_eq!(report["passed"], 6, "{report}");
    });
}
