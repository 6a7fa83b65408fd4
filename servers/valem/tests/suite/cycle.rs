//! What one mutate cycle does beyond derivations: meta values, flag constraints, effects,
//! history and traces.

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
    let untouched = call(&server, "mutate", json!({ "id": "budget", "mutations": { "$.age": 31 } })).unwrap();
    assert_eq!(untouched["dispatchedEffects"], json!([]), "the trigger's inputs did not change");
    let changed = call(&server, "mutate", json!({ "id": "budget", "mutations": { "$.spend": 160 } })).unwrap();
    assert_eq!(changed["dispatchedEffects"][0]["dedupeKey"], 160);

    let history = call(&server, "get_history", json!({ "id": "budget" })).unwrap();
    assert_eq!(history.as_array().unwrap().len(), 6, "creation and five commits: {history}");
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

/// A spec whose effect calls a server for the rate of a region, its status at `$.io`.
fn rates() -> tooltable::Server<valem::tools::registry::Models> {
    let server = valem::server().unwrap();
    let spec = json!({
        "id": "rates",
        "schema": { "type": "object", "properties": { "region": { "type": "string" }, "io": { "type": "object" } } },
        "effects": [{ "id": "fetch", "executor": "server", "trigger": "region != null", "dedupeKey": "region",
                      "statusPath": "$.io", "request": { "method": "GET", "url": "https://r.example/{ region }?n={ $length(region) }" },
                      "afterMs": "1000 * 60", "prompt": "'Rate for ' & region", "description": "kept as given" }]
    });
    call(&server, "create_model", json!({ "spec": spec })).unwrap();
    server
}

fn dispatched(
    server: &tooltable::Server<valem::tools::registry::Models>,
    mutations: serde_json::Value,
) -> serde_json::Value {
    call(server, "mutate", json!({ "id": "rates", "mutations": mutations })).unwrap()["dispatchedEffects"].clone()
}

#[test]
fn an_effect_request_is_resolved_data() {
    let server = rates();
    let sent = dispatched(&server, json!({ "$.region": "north" }));
    assert_eq!(
        sent,
        json!([{ "effectId": "fetch", "executor": "server", "statusPath": "$.io", "dedupeKey": "north",
                 "request": { "method": "GET", "url": "https://r.example/north?n=5" },
                 "afterMs": 60000, "prompt": "Rate for north", "description": "kept as given" }])
    );
}

#[test]
fn an_effect_fires_in_every_cycle_that_touches_its_inputs_unless_its_status_holds_it() {
    let server = rates();
    assert_eq!(dispatched(&server, json!({ "$.region": "north" })).as_array().unwrap().len(), 1);
    assert_eq!(dispatched(&server, json!({ "$.region": "north" })).as_array().unwrap().len(), 1, "fires again");
    for phase in ["pending", "in_flight"] {
        let held = dispatched(&server, json!({ "$.io": { "phase": phase }, "$.region": "south" }));
        assert_eq!(held, json!([]), "{phase} holds it");
    }
    let done = dispatched(&server, json!({ "$.io": { "phase": "done", "key": "south" }, "$.region": "south" }));
    assert_eq!(done, json!([]), "the status's key is the current dedupe key");
    let next = dispatched(&server, json!({ "$.region": "west" }));
    assert_eq!(next[0]["dedupeKey"], "west", "a new key is a new request: {next}");
    let failed = dispatched(
        &server,
        json!({ "$.io": { "phase": "failed", "key": "east", "error": "timeout" }, "$.region": "east" }),
    );
    assert_eq!(failed, json!([]), "the key matches");
}

#[test]
fn an_argument_that_is_no_address_is_refused_by_its_schema_saying_what_one_is() {
    let server = valem::server().unwrap();
    call(&server, "create_model", json!({ "spec": { "id": "m", "schema": {} } })).unwrap();
    let expected =
        "a canonical address: `$`, then `.name`, `[index]`, `[*]` or `[\"key\"]` steps, e.g. $.items[0].price";
    let refused = call(&server, "mutate", json!({ "id": "m", "mutations": { "a.b": 1 } })).unwrap_err();
    assert_eq!(refused["violations"][0]["path"], "/mutations");
    assert_eq!(
        refused["violations"][0]["message"],
        format!("\"a.b\" does not match its pattern. Expected: {expected}")
    );
    let refused = call(&server, "get_state", json!({ "id": "m", "paths": ["$.ok", "x"] })).unwrap_err();
    assert_eq!(refused["violations"][0]["path"], "/paths/1");
    let refused = call(&server, "explain", json!({ "id": "m", "path": "$constraint" })).unwrap_err();
    assert_eq!(refused["error"], "Invalid arguments", "{refused}");
    for target in ["$constraint:positive", "$.a[0]", "$"] {
        call(&server, "explain", json!({ "id": "m", "path": target })).unwrap();
    }
}
