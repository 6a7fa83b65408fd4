//! The authoring tools: findings with locations, errors apart from warnings.

use serde_json::{Value, json};

use crate::support::in_process::call;

fn locations(findings: &Value) -> Vec<String> {
    findings.as_array().unwrap().iter().map(|f| f["location"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn validate_spec_reports_each_problem_where_it_is() {
    let server = valem::server().unwrap();
    let spec = json!({
        "id": "bad", "version": "1", "schema": {},
        "derivations": [
            { "path": "$.a", "expr": "b + 1" },
            { "path": "$.b", "expr": "a + 1" },
            { "path": "total", "expr": "1" },
            { "path": "$.c", "expr": "$nowhere(1)" },
            { "path": "$.d", "expr": "(1 +" }
        ]
    });
    let v = call(&server, "validate_spec", json!({ "spec": spec })).unwrap();
    assert_eq!(v["valid"], false);
    let errors = locations(&v["errors"]);
    for at in ["derivations[2].path", "derivations[3].expr", "derivations[4].expr"] {
        assert!(errors.contains(&at.to_owned()), "{at} in {errors:?}");
    }
    assert_eq!(locations(&v["warnings"]), ["version"]);

    let cyclic = json!({ "id": "cyclic", "schema": {}, "derivations": [
        { "path": "$.a", "expr": "b + 1" }, { "path": "$.b", "expr": "a + 1" } ] });
    let v = call(&server, "validate_spec", json!({ "spec": cyclic })).unwrap();
    assert_eq!(locations(&v["errors"]), ["graph"]);
}

#[test]
fn failing_embedded_tests_are_warnings() {
    let server = valem::server().unwrap();
    let spec = json!({ "id": "t", "schema": {}, "derivations": [{ "path": "$.total", "expr": "price * qty" }],
        "tests": [{ "description": "wrong", "given": { "$.price": 2, "$.qty": 2 }, "expect": { "$.total": 5 } }] });
    let v = call(&server, "validate_spec", json!({ "spec": spec })).unwrap();
    assert_eq!(v["valid"], true);
    assert_eq!(locations(&v["warnings"]), ["tests[0]"]);
    let report = call(&server, "test_spec", json!({ "spec": spec })).unwrap();
    assert_eq!((report["total"].clone(), report["failed"].clone()), (json!(1), json!(1)));
    assert_eq!(report["results"][0]["failures"][0]["actual"], 4);
}

#[test]
fn dry_run_and_eval_expression_register_nothing() {
    let server = valem::server().unwrap();
    let spec = json!({ "id": "order", "schema": {}, "derivations": [
        { "path": "$.items[*].line", "expr": "$parent.price * $parent.qty" },
        { "path": "$.total", "expr": "$sum(items.line)" } ] });
    let state = call(
        &server,
        "dry_run",
        json!({ "spec": spec, "mutations": {
        "$.items[0].price": 2, "$.items[0].qty": 3, "$.items[1].price": 1.5, "$.items[1].qty": 2 } }),
    )
    .unwrap();
    assert_eq!(
        state,
        json!({ "items": [{ "price": 2, "qty": 3, "line": 6 }, { "price": 1.5, "qty": 2, "line": 3 }], "total": 9 })
    );
    let answer = call(
        &server,
        "eval_expression",
        json!({ "expr": "$f(x) + $k", "input": { "x": 2 },
        "library": "( $f := function($n) { $n * 10 }; [\"f\"] )", "bindings": { "k": 1 } }),
    )
    .unwrap();
    assert_eq!(answer, json!({ "ok": true, "undefined": false, "result": 21 }));
    let answer = call(&server, "eval_expression", json!({ "expr": "(1 +" })).unwrap();
    assert_eq!(answer["error"], "compile");
    assert_eq!(call(&server, "list_models", json!({})).unwrap(), json!([]));
}
