//! The tools called in process, where values no JSON parser would accept can be built: a value
//! nested 10,000 deep is refused with a clear tool error.

use serde_json::{Value, json};

use crate::support::in_process::call;

fn nested(depth: usize) -> Value {
    // Moved into a map by hand: `json!` would copy the value at every level.
    let mut v = json!(1);
    for _ in 0..depth {
        let mut map = serde_json::Map::new();
        map.insert("a".into(), v);
        v = Value::Object(map);
    }
    v
}

#[test]
fn deeply_nested_values_are_refused() {
    // Building and dropping the value recurses; give it room.
    let worker = std::thread::Builder::new().stack_size(64 * 1024 * 1024).spawn(|| {
        let server = valem::server().unwrap();
        let spec = json!({ "id": "deep", "schema": {} });
        call(&server, "create_model", json!({ "spec": spec })).unwrap();
        let body =
            call(&server, "mutate", json!({ "id": "deep", "mutations": { "$.x": nested(10_000) } })).unwrap_err();
        assert_eq!(body["error"], "Value too large", "{body}");
        assert_eq!(call(&server, "get_state", json!({ "id": "deep" })).unwrap(), json!({}));
        let answer = call(&server, "eval_expression", json!({ "expr": "a", "input": nested(10_000) })).unwrap();
        assert_eq!(answer["ok"], false);
    });
    worker.unwrap().join().unwrap();
}

#[test]
fn taken_ids_get_a_suffix() {
    let server = valem::server().unwrap();
    let spec = json!({ "id": "twice", "schema": {} });
    assert_eq!(call(&server, "create_model", json!({ "spec": spec })).unwrap()["id"], "twice");
    assert_eq!(call(&server, "create_model", json!({ "spec": spec })).unwrap()["id"], "twice-2");
    assert_eq!(call(&server, "list_models", json!({})).unwrap(), json!(["twice", "twice-2"]));
}
