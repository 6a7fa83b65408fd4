//! `patch_model`: RFC 6902 on the merged state, committed as one cycle like `mutate`.

use serde_json::{Value, json};
use tooltable::Server;
use valem::tools::registry::Models;

use crate::support::in_process::call;

/// An order whose lines derive their totals, with a read-only note.
pub fn order() -> (Server<Models>, Value) {
    let server = valem::server().unwrap();
    let spec = json!({
        "id": "order",
        "version": "1.0.0",
        "schema": {
            "type": "object",
            "properties": {
                "note": { "type": "string", "readOnly": true },
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": { "sku": { "type": "string" }, "price": { "type": "number" }, "qty": { "type": "integer" } },
                    },
                },
            },
        },
        "derivations": [
            { "path": "$.items[*].lineTotal", "expr": "$parent.price * $parent.qty" },
            { "path": "$.total", "expr": "$sum(items.lineTotal)" },
        ],
    });
    call(&server, "create_model", json!({ "spec": spec })).unwrap();
    let items = json!([{ "sku": "a", "price": 1, "qty": 1 }, { "sku": "b", "price": 2, "qty": 1 }, { "sku": "c", "price": 3, "qty": 1 }]);
    call(&server, "mutate", json!({ "id": "order", "mutations": { "$.items": items } })).unwrap();
    (server, json!("order"))
}

fn patch(server: &Server<Models>, ops: Value) -> Result<Value, Value> {
    call(server, "patch_model", json!({ "id": "order", "patch": ops }))
}

fn skus(server: &Server<Models>) -> Value {
    call(server, "get_state", json!({ "id": "order" })).unwrap()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["sku"].clone())
        .collect()
}

#[test]
fn array_elements_are_inserted_removed_and_reordered() {
    let (server, _) = order();
    let done =
        patch(&server, json!([{ "op": "add", "path": "/items/1", "value": { "sku": "x", "price": 10, "qty": 2 } }]))
            .unwrap();
    assert_eq!(done["mutatedPaths"], json!(["$.items"]), "{done}");
    assert_eq!(skus(&server), json!(["a", "x", "b", "c"]));
    let state = call(&server, "get_state", json!({ "id": "order" })).unwrap();
    assert_eq!((state["items"][1]["lineTotal"].clone(), state["total"].clone()), (json!(20), json!(26)));

    patch(&server, json!([{ "op": "remove", "path": "/items/0" }])).unwrap();
    assert_eq!(skus(&server), json!(["x", "b", "c"]));

    let moved = patch(&server, json!([{ "op": "move", "from": "/items/2", "path": "/items/0" }])).unwrap();
    assert_eq!(moved["mutatedPaths"], json!(["$.items[0]", "$.items[1]", "$.items[2]"]));
    assert_eq!(skus(&server), json!(["c", "x", "b"]));
    let state = call(&server, "get_state", json!({ "id": "order" })).unwrap();
    assert_eq!(state["items"][0]["lineTotal"], 3, "derived values follow their elements: {state}");

    let appended =
        patch(&server, json!([{ "op": "add", "path": "/items/-", "value": { "sku": "z", "price": 1, "qty": 1 } }]))
            .unwrap();
    let each = (0..4).map(|i| format!("$.items[{i}].lineTotal"));
    assert_eq!(appended["derivedUpdated"], json!(each.chain(["$.total".to_owned()]).collect::<Vec<_>>()));
    assert_eq!(skus(&server), json!(["c", "x", "b", "z"]));
}

#[test]
fn a_field_inside_an_element_is_written_with_its_element() {
    let (server, _) = order();
    let done = patch(&server, json!([{ "op": "replace", "path": "/items/2/qty", "value": 5 }])).unwrap();
    assert_eq!(done["mutatedPaths"], json!(["$.items[2]"]));
    assert_eq!(call(&server, "get_field", json!({ "id": "order", "path": "$.total" })).unwrap(), 18);
}

#[test]
fn a_failing_test_or_a_bad_operation_changes_nothing() {
    let (server, _) = order();
    let before = call(&server, "get_state", json!({ "id": "order" })).unwrap();
    let failed = patch(
        &server,
        json!([{ "op": "remove", "path": "/items/0" }, { "op": "test", "path": "/total", "value": 99 }]),
    )
    .unwrap_err();
    assert_eq!(failed["error"], "Invalid patch");
    assert_eq!(failed["message"], "Invalid patch: operation '/1' failed at path '/total': value did not match");
    let bad = patch(&server, json!([{ "op": "remove", "path": "/items/9" }])).unwrap_err();
    assert!(bad["message"].as_str().unwrap().contains("operation '/0'"), "{bad}");
    let unknown = patch(&server, json!([{ "op": "frobnicate", "path": "/a" }])).unwrap_err();
    assert_eq!(unknown["error"], "Invalid arguments", "the inputSchema names the six operations: {unknown}");
    let no_from =
        patch(&server, json!([{ "op": "replace", "path": "/a", "value": 1 }, { "op": "move", "path": "/a" }]));
    let violation = no_from.unwrap_err()["violations"][0].clone();
    assert_eq!(
        violation,
        json!({ "path": "/patch/1", "keyword": "required", "message": "\"from\" is a required property" }),
        "the inputSchema says what each operation needs"
    );
    assert_eq!(call(&server, "get_state", json!({ "id": "order" })).unwrap(), before);
    assert_eq!(call(&server, "get_history", json!({ "id": "order" })).unwrap().as_array().unwrap().len(), 2);
}

#[test]
fn derived_and_read_only_fields_are_refused_as_mutate_refuses_them() {
    let (server, _) = order();
    let derived = patch(&server, json!([{ "op": "replace", "path": "/total", "value": 1 }])).unwrap_err();
    assert_eq!(derived["error"], "Schema violation");
    assert_eq!(derived["violations"][0]["keyword"], "readOnly");
    let removed = patch(&server, json!([{ "op": "remove", "path": "/total" }])).unwrap_err();
    assert_eq!(removed["violations"][0]["path"], "$.total", "{removed}");
    let line = patch(&server, json!([{ "op": "replace", "path": "/items/0/lineTotal", "value": 7 }])).unwrap_err();
    assert_eq!(line["violations"][0]["path"], "$.items[0].lineTotal", "{line}");
    let note = patch(&server, json!([{ "op": "add", "path": "/note", "value": "hi" }])).unwrap_err();
    assert_eq!(
        note["violations"][0],
        json!({ "path": "$.note", "keyword": "readOnly", "message": "$.note is read-only" })
    );
    let typed = patch(&server, json!([{ "op": "replace", "path": "/items/0/qty", "value": "many" }])).unwrap_err();
    assert_eq!(typed["error"], "Schema violation", "{typed}");
}

#[test]
fn a_patch_of_only_tests_records_nothing() {
    let (server, _) = order();
    let done = patch(&server, json!([{ "op": "test", "path": "/total", "value": 6 }])).unwrap();
    assert_eq!(
        done,
        json!({ "success": true, "mutatedPaths": [], "derivedUpdated": [], "metaUpdated": [], "flaggedConstraints": [], "dispatchedEffects": [] })
    );
    assert_eq!(call(&server, "get_audit", json!({ "id": "order" })).unwrap().as_array().unwrap().len(), 1);
}

#[test]
fn a_member_removed_from_an_object_is_gone() {
    let server = valem::server().unwrap();
    call(
        &server,
        "create_model",
        json!({ "spec": { "id": "m", "schema": {}, "derivations": [{ "path": "$.n", "expr": "$count($keys(a))" }] } }),
    )
    .unwrap();
    call(&server, "mutate", json!({ "id": "m", "mutations": { "$.a": { "x": 1, "y": 2 } } })).unwrap();
    let done = call(
        &server,
        "patch_model",
        json!({ "id": "m", "patch": [{ "op": "remove", "path": "/a/x" }], "includeTraces": true }),
    )
    .unwrap();
    assert_eq!(done["mutatedPaths"], json!(["$.a"]));
    assert_eq!(done["traces"][0]["targetPath"], "$.n");
    assert_eq!(call(&server, "get_state", json!({ "id": "m" })).unwrap(), json!({ "a": { "y": 2 }, "n": 1 }));
}
