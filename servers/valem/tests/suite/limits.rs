//! Every bound of `Limits` holds, with a clear error and nothing lost: memory per evaluation,
//! sequences, the whole cycle's time, a model's document, all documents, the model count; and
//! `list_models` pages past a page of ids.

use serde_json::{Value, json};
use tooltable::{ErrorKind, Server};
use valem::options::Limits;
use valem::tools::registry::Models;

use crate::support::busy;

fn server(limits: Limits) -> Server<Models> {
    valem::server_with(limits).unwrap()
}

/// The tool's result, or its failure's kind and body.
fn call(server: &Server<Models>, tool: &str, args: Value) -> Result<Value, (ErrorKind, Value)> {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(server.call(tool, args)).map_err(|f| (f.kind, f.body))
}

fn eval(server: &Server<Models>, expr: &str) -> Value {
    call(server, "eval_expression", json!({ "expr": expr })).unwrap()
}

fn refused(answer: &Value, why: &str) {
    assert_eq!(answer["ok"], false, "{answer}");
    assert!(answer["message"].as_str().unwrap().contains(why), "{answer}");
}

#[test]
fn one_call_cannot_build_a_huge_string() {
    let s = server(Limits::default());
    for expr in [
        "$length($pad('', 4000000000, 'x'))",
        "$length($pad('', -1000000000))",
        "'' ~> $pad(1000000000)",
        "$length($replace($pad('', 100000, 'a'), 'a', $pad('', 100000, 'b')))",
        "$count($split($pad('', 2000000, 'a'), ''))",
        "$length($join($split($pad('', 2000, 'a'), ''), $pad('', 100000, 'b')))",
    ] {
        refused(&eval(&s, expr), "--max-eval-bytes");
    }
    // Within the budget the same functions answer as JSONata does.
    assert_eq!(eval(&s, "$pad('ab', 4, '-')")["result"], "ab--");
    assert_eq!(eval(&s, "'ab' ~> $pad(-4)")["result"], "  ab");
    assert_eq!(eval(&s, "$replace('aXa', 'X', 'bb')")["result"], "abba");
    assert_eq!(eval(&s, "['a', 'b'] ~> $join('+')")["result"], "a+b");
    assert_eq!(eval(&s, "['a,b'].$split(',')")["result"], json!(["a", "b"]));
}

#[test]
fn values_that_grow_step_by_step_stop_at_the_memory_budget() {
    let s = server(Limits { max_eval_bytes: 8 << 20, ..Limits::default() });
    let doubling = "($a := $pad('', 100000, 'x'); $b := $a & $a & $a & $a; $c := $b & $b & $b & $b; \
                    $d := $c & $c & $c & $c; $e := $d & $d & $d & $d; $length($e))";
    refused(&eval(&s, doubling), "bytes of memory");
    refused(&eval(&s, "$count([1..5000000])"), "D2015");
    assert_eq!(eval(&s, "$count([1..1000])")["result"], 1000);
}

#[test]
fn the_time_limit_covers_the_whole_cycle() {
    let s = server(Limits { cycle_timeout_ms: 1_000, ..Limits::default() });
    // Three derivations of 400 ms each: each within the limit, together past it.
    let wait =
        "($wait := function($until) { $millis() < $until ? $wait($until) : ms }; ms > 0 ? $wait($millis() + ms) : 0)";
    let derivations: Vec<Value> = (0..3).map(|i| json!({ "path": format!("$.w{i}"), "expr": wait })).collect();
    let spec = json!({ "id": "slow", "schema": {}, "derivations": derivations });
    call(&s, "create_model", json!({ "spec": spec })).unwrap();
    let before = call(&s, "get_state", json!({ "id": "slow" })).unwrap();
    let (kind, body) = call(&s, "mutate", json!({ "id": "slow", "mutations": { "$.ms": 400 } })).unwrap_err();
    assert_eq!(body["error"], "Time limit exceeded", "{body}");
    assert_eq!(kind, ErrorKind::InvalidInput);
    assert_eq!(call(&s, "get_state", json!({ "id": "slow" })).unwrap(), before, "the cycle was undone");
    call(&s, "mutate", json!({ "id": "slow", "mutations": { "$.ms": 1 } })).unwrap();
}

#[test]
fn a_model_may_not_outgrow_its_document_limit() {
    let s = server(Limits { max_model_bytes: 100_000, ..Limits::default() });
    let spec = json!({ "id": "big", "schema": {}, "derivations": [{ "path": "$.xs", "expr": "[1..n]" }] });
    call(&s, "create_model", json!({ "spec": spec })).unwrap();
    call(&s, "mutate", json!({ "id": "big", "mutations": { "$.n": 100 } })).unwrap();
    let before = call(&s, "get_state", json!({ "id": "big" })).unwrap();
    let (kind, body) = call(&s, "mutate", json!({ "id": "big", "mutations": { "$.n": 50000 } })).unwrap_err();
    assert_eq!((kind, &body["error"]), (ErrorKind::TooLarge, &json!("State too large")), "{body}");
    assert!(body["message"].as_str().unwrap().contains("--max-model-bytes"), "{body}");
    assert_eq!(call(&s, "get_state", json!({ "id": "big" })).unwrap(), before);
}

#[test]
fn the_models_together_may_not_outgrow_the_server_limit() {
    let s = server(Limits { max_stored_bytes: 60_000, ..Limits::default() });
    let spec = |id: &str| json!({ "id": id, "schema": {}, "derivations": [{ "path": "$.xs", "expr": "[1..n]" }] });
    call(&s, "create_model", json!({ "spec": spec("a") })).unwrap();
    call(&s, "create_model", json!({ "spec": spec("b") })).unwrap();
    call(&s, "mutate", json!({ "id": "a", "mutations": { "$.n": 8000 } })).unwrap();
    let (_, body) = call(&s, "mutate", json!({ "id": "b", "mutations": { "$.n": 8000 } })).unwrap_err();
    assert!(body["message"].as_str().unwrap().contains("--max-stored-bytes"), "{body}");
    // Deleting a model gives its bytes back.
    call(&s, "delete_model", json!({ "id": "a" })).unwrap();
    call(&s, "mutate", json!({ "id": "b", "mutations": { "$.n": 8000 } })).unwrap();
}

#[test]
fn the_model_count_is_bounded() {
    let s = server(Limits { max_models: 2, ..Limits::default() });
    let spec = json!({ "id": "m", "schema": {} });
    call(&s, "create_model", json!({ "spec": spec })).unwrap();
    call(&s, "create_model", json!({ "spec": spec })).unwrap();
    let (kind, body) = call(&s, "create_model", json!({ "spec": spec })).unwrap_err();
    assert_eq!((kind, &body["error"]), (ErrorKind::TooMany, &json!("Too many models")), "{body}");
    assert!(body["message"].as_str().unwrap().contains("--max-models"));
    // A freed suffix is not searched for again: the suffixes go on.
    call(&s, "delete_model", json!({ "id": "m-2" })).unwrap();
    assert_eq!(call(&s, "create_model", json!({ "spec": spec })).unwrap()["id"], "m-3");
}

#[test]
fn list_models_pages_with_a_cursor() {
    let s = server(Limits::default());
    for _ in 0..5 {
        call(&s, "create_model", json!({ "spec": { "id": "p", "schema": {} } })).unwrap();
    }
    let all = json!(["p", "p-2", "p-3", "p-4", "p-5"]);
    assert_eq!(call(&s, "list_models", json!({})).unwrap(), all, "one page: the plain list");
    let first = call(&s, "list_models", json!({ "limit": 2 })).unwrap();
    assert_eq!(first, json!({ "models": ["p", "p-2"], "nextCursor": "p-2" }));
    let second = call(&s, "list_models", json!({ "limit": 2, "cursor": "p-2" })).unwrap();
    assert_eq!(second, json!({ "models": ["p-3", "p-4"], "nextCursor": "p-4" }));
    assert_eq!(call(&s, "list_models", json!({ "limit": 2, "cursor": "p-4" })).unwrap(), json!(["p-5"]));
}

#[test]
fn a_busy_model_stays_readable_by_others_through_lazy_reads() {
    // get_state evaluates lazy derivations on the pool, under the same budget.
    let s = server(Limits { cycle_timeout_ms: 200, ..Limits::default() });
    let mut spec = busy::spec("lazy");
    spec["derivations"][0]["evaluation"] = json!("lazy");
    call(&s, "create_model", json!({ "spec": spec })).unwrap();
    call(&s, "mutate", json!({ "id": "lazy", "mutations": { "$.ms": 5000 } })).unwrap();
    let state = call(&s, "get_state", json!({ "id": "lazy" })).unwrap();
    assert_eq!(state["ms"], 5000, "{state}");
    assert_eq!(state["waited"], Value::Null, "the lazy value stopped at the time limit: {state}");
}

#[test]
fn the_history_and_the_traces_keep_a_bounded_amount() {
    let s = server(Limits { max_model_bytes: 100_000, ..Limits::default() });
    let spec = json!({ "id": "h", "schema": {}, "derivations": [{ "path": "$.xs", "expr": "[1..n]" }] });
    call(&s, "create_model", json!({ "spec": spec })).unwrap();
    for i in 0..10 {
        call(&s, "mutate", json!({ "id": "h", "mutations": { "$.n": 5000 + i } })).unwrap();
    }
    // Each cycle's journal keeps the former `xs`, about 24 KB: four fit in 100 KB, not eleven.
    let history = call(&s, "get_history", json!({ "id": "h" })).unwrap();
    let kept = history.as_array().unwrap().len();
    assert!((1..=5).contains(&kept), "{kept} entries kept");
    let newest = call(&s, "get_state", json!({ "id": "h", "at": history[kept - 1] })).unwrap();
    assert_eq!(newest["n"], 5009, "the newest stays");
    let traces = call(&s, "explain", json!({ "id": "h", "path": "$.xs", "limit": 1 })).unwrap();
    assert_eq!(traces[0]["result"], "<more than 16384 bytes>", "{traces}");
}
