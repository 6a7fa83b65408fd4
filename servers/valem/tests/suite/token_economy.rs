//! What the narrowing options save on a large model (an order of 1,000 lines), in bytes of the
//! pretty-printed JSON a client receives; each test prints its figures and asserts that the
//! narrow answer holds what was asked for and nothing else.

use std::path::Path;

use serde_json::{Value, json};
use tooltable::Server;
use valem::tools::registry::Models;

use crate::support::in_process::call;
use crate::support::mcp_client;

const LINES: usize = 1_000;
/// A debug build evaluating 1,000 lines on a loaded machine can pass the default 1 s cycle
/// limit; the limit is not what these tests measure.
const CYCLE_LIMIT_MS: u64 = 60_000;

fn spec() -> Value {
    json!({
        "id": "big",
        "schema": { "type": "object", "properties": { "discount": { "type": "number" } } },
        "derivations": [
            { "path": "$.items[*].lineTotal", "expr": "$parent.price * $parent.qty" },
            { "path": "$.totals.gross", "expr": "$sum(items.lineTotal)" },
            { "path": "$.totals.net", "expr": "totals.gross - discount" }
        ],
        "constraints": [{ "id": "non-negative", "expr": "totals.net >= 0", "message": "never negative", "policy": "flag" }]
    })
}

fn lines() -> Value {
    let items: Vec<Value> =
        (0..LINES).map(|i| json!({ "sku": format!("sku-{i:04}"), "price": i % 17, "qty": 1 + i % 3 })).collect();
    json!({ "$.items": items, "$.discount": 5 })
}

fn big() -> Server<Models> {
    let limits = valem::options::Limits { cycle_timeout_ms: CYCLE_LIMIT_MS, ..valem::options::Limits::DEFAULT };
    let server = valem::server_with(limits).unwrap();
    call(&server, "create_model", json!({ "spec": spec() })).unwrap();
    call(&server, "mutate", json!({ "id": "big", "mutations": lines() })).unwrap();
    server
}

fn bytes(v: &Value) -> usize {
    serde_json::to_string_pretty(v).unwrap().len()
}

fn report(what: &str, full: usize, narrow: usize) {
    println!("{what}: {full} bytes -> {narrow} bytes ({} saved)", full - narrow);
}

#[test]
fn get_state_paths_and_depth() {
    let server = big();
    let full = call(&server, "get_state", json!({ "id": "big" })).unwrap();
    let totals = call(&server, "get_state", json!({ "id": "big", "paths": ["$.totals"] })).unwrap();
    let gross: usize = (0..LINES).map(|i| (i % 17) * (1 + i % 3)).sum();
    assert_eq!(totals, json!({ "totals": { "gross": gross, "net": gross - 5 } }));
    report("get_state paths [$.totals]", bytes(&full), bytes(&totals));
    let outline = call(&server, "get_state", json!({ "id": "big", "depth": 1 })).unwrap();
    assert_eq!(
        outline,
        json!({ "items": format!("<array: {LINES} items>"), "discount": 5, "totals": "<object: 2 fields>" })
    );
    report("get_state depth 1", bytes(&full), bytes(&outline));
    // A subtree is spliced back at its address: the elements before it are null.
    let one = call(&server, "get_state", json!({ "id": "big", "paths": ["$.items[7]"] })).unwrap();
    let mut before = vec![Value::Null; 7];
    before.push(json!({ "sku": "sku-0007", "price": 7, "qty": 2, "lineTotal": 14 }));
    assert_eq!(one, json!({ "items": before }));
    report("get_state paths [$.items[7]]", bytes(&full), bytes(&one));
    assert!(bytes(&totals) * 100 < bytes(&full));
}

#[test]
fn traces_only_with_include_traces() {
    let server = big();
    let write = |traces: bool| {
        let args = json!({ "id": "big", "mutations": { "$.items[0].qty": 9 }, "includeTraces": traces });
        call(&server, "mutate", args).unwrap()
    };
    let lean = write(false);
    assert!(lean.get("traces").is_none(), "{lean}");
    let traced = write(true);
    let traces = traced["traces"].as_array().unwrap();
    assert!(traces.iter().any(|t| t["targetPath"] == "$constraint:non-negative"), "{traced}");
    report("mutate without includeTraces", bytes(&traced), bytes(&lean));
    assert!(bytes(&lean) < bytes(&traced));
}

#[test]
fn the_explain_limit() {
    let server = big();
    let all = call(&server, "explain", json!({ "id": "big", "path": "$.items" })).unwrap();
    let newest = call(&server, "explain", json!({ "id": "big", "path": "$.items", "limit": 3 })).unwrap();
    let kept = all.as_array().unwrap();
    // The ring keeps the newest 500 traces of the model; the last cycle's reach past the lines.
    assert!((400..500).contains(&kept.len()), "{}", kept.len());
    assert_eq!(newest.as_array().unwrap(), &kept[kept.len() - 3..]);
    report("explain limit 3", bytes(&all), bytes(&newest));
}

/// Over stdio, where the guard applies: an oversized read comes back as a short note, and a
/// committed write whose answer is oversized is no failure.
#[test]
fn the_result_size_guard() {
    let limit = CYCLE_LIMIT_MS.to_string();
    let options = ["--cycle-timeout-ms", limit.as_str()];
    let mut client = mcp_client::Client::start(Path::new(env!("CARGO_BIN_EXE_valem")), &options).unwrap();
    assert!(!client.call("create_model", json!({ "spec": spec() })).unwrap().is_error);
    let write = client.call("mutate", json!({ "id": "big", "mutations": lines(), "includeTraces": true })).unwrap();
    assert!(!write.is_error, "the write was committed: {}", write.body);
    assert_eq!(write.body["error"], "Result too large");
    let read = client.call("get_state", json!({ "id": "big" })).unwrap();
    assert!(!read.is_error);
    assert_eq!(read.body["error"], "Result too large");
    let withheld = read.body["resultChars"].as_u64().unwrap() as usize;
    report("get_state over the guard", withheld, bytes(&read.body));
    let net = client.call("get_field", json!({ "id": "big", "path": "$.totals.net" })).unwrap();
    assert!(net.body.as_f64().unwrap() > 0.0, "the write took effect: {}", net.body);
}
