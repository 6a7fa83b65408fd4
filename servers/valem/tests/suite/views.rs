//! `get_view`: a view evaluated on the merged state and the live meta values.

use serde_json::json;

use crate::support::in_process::call;

#[test]
fn a_view_shows_values_meta_and_evaluated_text() {
    let server = valem::server().unwrap();
    let spec = json!({
        "id": "loan",
        "schema": { "type": "object", "properties": { "amount": { "type": "number" }, "cosigner": { "type": "string" } } },
        "constants": { "unit": "EUR" },
        "derivations": [{ "path": "$.fee", "expr": "amount / 100" }],
        "metaDerivations": [
            { "path": "$.cosigner", "property": "relevant", "expr": "amount > 1000" },
            { "path": "$.fee", "property": "readOnly", "expr": "true" },
        ],
        "viewDefinition": {
            "defaultView": "main",
            "views": [
                { "id": "other", "components": [] },
                { "id": "main", "label": "Loan", "components": [
                    { "id": "amount", "type": "currencyField", "bind": "$.amount", "label": "Amount", "required": true },
                    { "id": "fee", "type": "number", "bind": "$.fee" },
                    { "id": "cosigner", "type": "text", "bind": "$.cosigner" },
                    { "id": "note", "type": "label", "text": "'Fee: ' & $string(fee) & ' ' & $const.unit", "caption": "fee", "trend": "Plain words", "visible": "amount > 0" },
                    { "id": "box", "type": "section", "children": [{ "id": "inner", "type": "label", "text": "$string(amount)", "visible": false }] },
                    { "id": "why", "type": "explainPanel", "text": "$bogus(" },
                ] },
            ],
        },
    });
    call(&server, "create_model", json!({ "spec": spec })).unwrap();
    call(&server, "mutate", json!({ "id": "loan", "mutations": { "$.amount": 500 } })).unwrap();
    let view = call(&server, "get_view", json!({ "id": "loan" })).unwrap();
    assert_eq!(
        view,
        json!({
            "modelId": "loan",
            "viewId": "main",
            "title": "Loan",
            "layout": "vertical",
            "components": [
                { "id": "amount", "type": "currencyField", "bind": "$.amount", "label": "Amount", "value": 500, "required": true, "format": "currency" },
                { "id": "fee", "type": "number", "bind": "$.fee", "value": 5, "enabled": false, "readOnly": true },
                { "id": "cosigner", "type": "text", "bind": "$.cosigner", "visible": false },
                { "id": "note", "type": "label", "text": "Fee: 5 EUR", "caption": "5", "trend": "Plain words" },
                { "id": "box", "type": "section", "children": [{ "id": "inner", "type": "label", "text": "500", "visible": false }] },
                { "id": "why", "type": "explainPanel", "text": "$bogus(" },
            ],
        })
    );
    let other = call(&server, "get_view", json!({ "id": "loan", "viewId": "other" })).unwrap();
    assert_eq!(other["components"], json!([]));
    let unknown = call(&server, "get_view", json!({ "id": "loan", "viewId": "nope" })).unwrap_err();
    assert_eq!(unknown["message"], "there is no view \"nope\"; the views are other, main");
    call(&server, "create_model", json!({ "spec": { "id": "bare", "schema": {} } })).unwrap();
    let none = call(&server, "get_view", json!({ "id": "bare" })).unwrap_err();
    assert!(none["message"].as_str().unwrap().contains("defines no views"), "{none}");
}

#[test]
fn a_view_definition_without_views_is_refused_by_the_schema_of_create_and_evolve() {
    let server = valem::server().unwrap();
    let spec = json!({ "id": "m", "schema": {}, "viewDefinition": { "defaultView": "main" } });
    let refused = call(&server, "create_model", json!({ "spec": spec })).unwrap_err();
    assert_eq!(refused["error"], "Invalid arguments", "{refused}");
    assert_eq!(refused["violations"][0]["path"], "/spec/viewDefinition");
    call(&server, "create_model", json!({ "spec": { "id": "m", "schema": {} } })).unwrap();
    let evolution = json!({ "id": "m", "evolution": { "newViewDefinition": {} } });
    let refused = call(&server, "evolve_spec", evolution).unwrap_err();
    assert_eq!(refused["error"], "Invalid arguments", "{refused}");
    assert_eq!(refused["violations"][0]["path"], "/evolution/newViewDefinition");
}

#[test]
fn a_null_bound_value_is_left_out_as_an_absent_one() {
    let server = valem::server().unwrap();
    let spec = json!({
        "id": "form",
        "schema": { "type": "object", "properties": { "name": { "type": ["string", "null"] }, "age": { "type": "number" } } },
        "derivations": [{ "path": "$.nothing", "expr": "undefinedField" }],
        "viewDefinition": { "views": [{ "id": "main", "components": [
            { "id": "name", "type": "textField", "bind": "$.name" },
            { "id": "age", "type": "numericField", "bind": "$.age" },
            { "id": "nothing", "type": "staticText", "bind": "$.nothing" },
        ] }] },
    });
    call(&server, "create_model", json!({ "spec": spec })).unwrap();
    call(&server, "mutate", json!({ "id": "form", "mutations": { "$.name": null } })).unwrap();
    let state = call(&server, "get_state", json!({ "id": "form" })).unwrap();
    assert_eq!(state, json!({ "name": null, "nothing": null }), "both fields hold null");
    let view = call(&server, "get_view", json!({ "id": "form" })).unwrap();
    assert_eq!(
        view["components"],
        json!([
            { "id": "name", "type": "textField", "bind": "$.name" },
            { "id": "age", "type": "numericField", "bind": "$.age" },
            { "id": "nothing", "type": "staticText", "bind": "$.nothing" },
        ])
    );
}
