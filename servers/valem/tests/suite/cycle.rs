//! What one mutate cycle does beyond derivations: meta values, flag constraints, effects
//! emitted once per key, history and traces.

use serde_json::json;

use crate::support::in_process::call;

#[test]
fn meta_flags_effects_history_and_traces() {
    let server = valem::server().unwrap();
    let spec = json!({
        "id": "budget",
        "constants": { "limit": 100 },
        "schema": { "type": "object", "properties": { "spend": { "type": "number" }, "age": { "type": "number" } } },
        "derivations": [{ "path": "$.over", "expr": "spend > $const.limit" }],
        "metaDerivations": [{ "path": "$.spend", "property": "maximum", "expr": "age < 18 ? 50 : 1000" }],
        "constraints": [{ "id": "within", "expr": "spend <= $const.limit", "message": "over the limit", "policy": "flag" }],
        "effects": [{ "id": "ask", "executor": "caller", "trigger": "over = true", "dedupeKey": "spend",
                      "payload": { "message": "'spent ' & $string(spend)" } }]
    });
    call(&server, "create_model", json!({ "spec": spec })).unwrap();
    let r = call(&server, "mutate", json!({ "id": "budget", "mutations": { "$.age": 16 } })).unwrap();
    assert_eq!(r["metaUpdated"], json!(["$.spend#maximum"]));
    let schema = call(&server, "get_effective_schema", json!({ "id": "budget", "path": "$.spend" })).unwrap();
    assert_eq!(schema, json!({ "type": "number", "maximum": 50 }));
    let refused = call(&server, "mutate", json!({ "id": "budget", "mutations": { "$.spend": 60 } })).unwrap_err();
    assert_eq!(refused["violations"][0]["keyword"], "maximum");

    call(&server, "mutate", json!({ "id": "budget", "mutations": { "$.age": 30 } })).unwrap();
    let r = call(&server, "mutate", json!({ "id": "budget", "mutations": { "$.spend": 150 } })).unwrap();
    assert_eq!(
        r["flaggedConstraints"],
        json!([{ "constraintId": "within", "message": "over the limit", "policy": "flag" }])
    );
    assert_eq!(r["dispatchedEffects"][0]["effectId"], "ask");
    assert_eq!(r["dispatchedEffects"][0]["payload"], json!({ "message": "spent 150" }));
    let again = call(&server, "mutate", json!({ "id": "budget", "mutations": { "$.age": 31 } })).unwrap();
    assert_eq!(again["dispatchedEffects"], json!([]));
    let changed = call(&server, "mutate", json!({ "id": "budget", "mutations": { "$.spend": 160 } })).unwrap();
    assert_eq!(changed["dispatchedEffects"][0]["dedupeKey"], 160);

    let history = call(&server, "get_history", json!({ "id": "budget" })).unwrap();
    let sources: Vec<&str> = history.as_array().unwrap().iter().map(|h| h["source"].as_str().unwrap()).collect();
    assert_eq!(sources, ["create", "mutate", "mutate", "mutate", "mutate", "mutate"]);
    let traces = call(&server, "explain", json!({ "id": "budget", "path": "$.over", "limit": 1 })).unwrap();
    assert_eq!(traces.as_array().unwrap().len(), 1);
    assert_eq!(traces[0]["result"], true);
    assert_eq!(traces[0]["inputPaths"], json!(["$.spend"]));
    let state = call(&server, "get_state", json!({ "id": "budget", "paths": ["$.over"], "depth": 1 })).unwrap();
    assert_eq!(state, json!({ "over": true }));
}

#[test]
fn payload_expressions_that_do_not_compile_or_fail_give_null() {
    let server = valem::server().unwrap();
    let spec = json!({
        "id": "payloads",
        "schema": { "type": "object", "properties": { "n": { "type": "number" } } },
        "effects": [{ "id": "tell", "executor": "caller", "trigger": "n > 0",
                      "payload": { "twice": "n * 2", "broken": "n +", "unknown": "$nope(n)", "count": 3,
                                   "nested": { "label": "'n=' & $string(n)", "list": ["n"] } } }]
    });
    call(&server, "create_model", json!({ "spec": spec })).unwrap();
    let r = call(&server, "mutate", json!({ "id": "payloads", "mutations": { "$.n": 2 } })).unwrap();
    let payload = json!({ "twice": 4, "broken": null, "unknown": null, "count": 3,
                          "nested": { "label": "n=2", "list": ["n"] } });
    assert_eq!(r["dispatchedEffects"][0]["payload"], payload);
}
