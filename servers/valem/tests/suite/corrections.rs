//! The first sixteen tools as the original answers them: meta keys, concrete derived addresses,
//! constraint traces, undefined results, history timestamps, absent fields, deletion, the
//! default input, guidance, `$meta` expectations and the effective schema's `required`.

use serde_json::{Value, json};
use tooltable::Server;
use valem::tools::registry::Models;

use crate::support::in_process::call;

fn order() -> Server<Models> {
    let server = valem::server().unwrap();
    let spec = json!({
        "id": "order",
        "schema": { "type": "object", "properties": {
            "items": { "type": "array", "items": { "type": "object", "properties": {
                "price": { "type": "number" }, "qty": { "type": "integer" } } } },
            "note": { "type": "string", "maxLength": 20 },
            "express": { "type": "boolean" } } },
        "derivations": [
            { "path": "$.items[*].lineTotal", "expr": "$parent.price * $parent.qty" },
            { "path": "$.total", "expr": "$sum(items.lineTotal)" },
            { "path": "$.missing", "expr": "nothing.here" },
            { "path": "$.broken", "expr": "$number('x')" }
        ],
        "metaDerivations": [
            { "path": "$.note", "property": "minLength", "expr": "express ? 5 : 0" },
            { "path": "$.note", "property": "required", "expr": "express = true" },
            { "path": "$.note", "property": "relevant", "expr": "express = true" }
        ],
        "constraints": [{ "id": "positive", "expr": "total >= 0", "message": "a total is never negative", "policy": "flag" }],
        "tests": [
            { "description": "static and live keywords", "given": { "$.express": true },
              "expect": { "$.note": { "$meta": { "maxLength": 20, "minLength": 5, "required": true, "relevant": true } } } }
        ]
    });
    call(&server, "create_model", json!({ "spec": spec })).unwrap();
    server
}

fn items() -> Value {
    json!({ "$.items": [{ "price": 2, "qty": 3 }, { "price": 5, "qty": 1 }], "$.express": true })
}

#[test]
fn meta_keys_are_snake_case_and_derived_addresses_concrete() {
    let server = order();
    let r = call(&server, "mutate", json!({ "id": "order", "mutations": items() })).unwrap();
    assert_eq!(r["derivedUpdated"], json!(["$.items[0].lineTotal", "$.items[1].lineTotal", "$.total"]));
    assert_eq!(r["metaUpdated"], json!(["$.note#min_length", "$.note#required", "$.note#relevant"]));
    let audit = call(&server, "get_audit", json!({ "id": "order" })).unwrap();
    assert_eq!(audit[0]["derivedUpdated"], r["derivedUpdated"]);
}

#[test]
fn constraint_traces_are_named_by_id_and_undefined_is_no_error() {
    let server = order();
    let r = call(&server, "mutate", json!({ "id": "order", "mutations": items(), "includeTraces": true })).unwrap();
    let traces = r["traces"].as_array().unwrap();
    let at = |target: &str| traces.iter().find(|t| t["targetPath"] == target).cloned().unwrap_or(Value::Null);
    assert_eq!(at("$constraint:positive")["constraintPassed"], true);
    let created = |path: &str| call(&server, "explain", json!({ "id": "order", "path": path })).unwrap()[0].clone();
    let missing = created("$.missing");
    assert_eq!((missing["result"].clone(), missing["errorMessage"].clone()), (Value::Null, Value::Null), "{missing}");
    assert!(created("$.broken")["errorMessage"].is_string(), "an evaluation error is recorded");

    let explained = call(&server, "explain", json!({ "id": "order", "path": "$constraint:positive" })).unwrap();
    assert_eq!(explained.as_array().unwrap().len(), 1, "the mutate (at creation the total was null): {explained}");
    assert!(explained.as_array().unwrap().iter().all(|t| t["targetPath"] == "$constraint:positive"));
    assert_eq!(call(&server, "get_state", json!({ "id": "order" })).unwrap()["missing"], Value::Null);
}

#[test]
fn history_lists_timestamps_each_a_valid_at() {
    let server = order();
    call(&server, "mutate", json!({ "id": "order", "mutations": { "$.note": "first" } })).unwrap();
    call(&server, "mutate", json!({ "id": "order", "mutations": { "$.note": "second" } })).unwrap();
    let history = call(&server, "get_history", json!({ "id": "order" })).unwrap();
    let stamps: Vec<&str> = history.as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert_eq!(stamps.len(), 3, "creation and two writes: {history}");
    assert!(stamps.windows(2).all(|w| w[0] <= w[1]), "commit order: {stamps:?}");
    let notes: Vec<Value> = stamps
        .iter()
        .map(|at| call(&server, "get_state", json!({ "id": "order", "at": at })).unwrap()["note"].clone())
        .collect();
    // Two commits within one millisecond share a timestamp, which reads the newer of them.
    let last = notes.last().cloned();
    assert_eq!(last, Some(json!("second")));
    assert!(notes[0] == Value::Null || stamps[0] == stamps[1], "creation holds no note: {notes:?}");
}

#[test]
fn an_absent_field_is_null_and_an_unknown_model_an_error() {
    let server = order();
    assert_eq!(call(&server, "get_field", json!({ "id": "order", "path": "$.nowhere.deep" })).unwrap(), Value::Null);
    let unknown = call(&server, "get_field", json!({ "id": "nobody", "path": "$.x" })).unwrap_err();
    assert!(unknown.to_string().contains("nobody"), "{unknown}");
}

#[test]
fn delete_model_answers_deleted_true() {
    let server = order();
    assert_eq!(call(&server, "delete_model", json!({ "id": "order" })).unwrap(), json!({ "deleted": true }));
    assert!(call(&server, "delete_model", json!({ "id": "order" })).is_err());
}

#[test]
fn eval_expression_without_input_reads_an_empty_object() {
    let server = valem::server().unwrap();
    let r = call(&server, "eval_expression", json!({ "expr": "$" })).unwrap();
    assert_eq!((r["ok"].clone(), r["undefined"].clone(), r["result"].clone()), (json!(true), json!(false), json!({})));
    let r = call(&server, "eval_expression", json!({ "expr": "$", "input": null })).unwrap();
    assert_eq!(r["result"], Value::Null);
}

#[test]
fn guidance_is_one_text_in_the_order_asked_and_unknown_topics_are_named() {
    let server = valem::server().unwrap();
    let r = call(&server, "get_domain_guidance", json!({ "topics": ["proration", "date_math"] })).unwrap();
    assert_eq!(r["topics"], json!(["proration", "date_math"]));
    let text = r["guidance"].as_str().unwrap();
    let (proration, dates) = (text.find("## Proration").unwrap(), text.find("## Date arithmetic").unwrap());
    assert!(proration < dates, "{text}");
    let unknown = call(&server, "get_domain_guidance", json!({ "topics": ["astrology"] })).unwrap_err();
    let message = unknown.to_string();
    let ids = [
        "amortization_schedule",
        "group_by",
        "date_math",
        "classification",
        "currency_conversion",
        "status_field",
        "rank_percentile",
        "regulated_charge",
        "percentage",
        "unit_conversion",
        "compound_growth",
        "weighted_average",
        "eligibility",
        "proration",
    ];
    assert!(message.contains("astrology") && ids.iter().all(|id| message.contains(id)), "{message}");
}

#[test]
fn effective_schema_shows_required_plainly_and_test_spec_compares_against_it() {
    let server = order();
    call(&server, "mutate", json!({ "id": "order", "mutations": { "$.express": true } })).unwrap();
    let schema = call(&server, "get_effective_schema", json!({ "id": "order", "path": "$.note" })).unwrap();
    assert_eq!(
        schema,
        json!({ "type": "string", "maxLength": 20, "minLength": 5, "required": true, "x-valem-relevant": true })
    );
    let refused = call(&server, "mutate", json!({ "id": "order", "mutations": { "$.note": "abc" } })).unwrap_err();
    assert_eq!(refused["violations"][0]["keyword"], "minLength", "the live flag keeps the schema valid: {refused}");
    let spec = call(&server, "get_spec", json!({ "id": "order" })).unwrap();
    let report = call(&server, "test_spec", json!({ "spec": spec })).unwrap();
    assert_eq!(report["passed"], 1, "{report}");
}

#[test]
fn eval_expression_can_still_run_without_any_input() {
    let server = valem::server().unwrap();
    let r = call(&server, "eval_expression", json!({ "expr": "$", "undefinedInput": true })).unwrap();
    assert_eq!((r["ok"].clone(), r["undefined"].clone()), (json!(true), json!(true)));
    assert!(call(&server, "eval_expression", json!({ "expr": "$", "undefinedInput": true, "input": 1 })).is_err());
}
