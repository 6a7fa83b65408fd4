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

#[test]
fn eval_expression_takes_one_input_and_its_schema_says_so() {
    let server = valem::server().unwrap();
    let eval = |args: Value| call(&server, "eval_expression", args);
    assert_eq!(eval(json!({ "expr": "x", "data": { "x": 1 } })).unwrap()["result"], 1);
    assert_eq!(eval(json!({ "expr": "$", "undefinedInput": true })).unwrap()["undefined"], true);
    for twice in [
        json!({ "expr": "x", "input": {}, "data": {} }),
        json!({ "expr": "x", "input": null, "data": null }),
        json!({ "expr": "x", "input": {}, "undefinedInput": true }),
        json!({ "expr": "x", "data": {}, "undefinedInput": true }),
    ] {
        let refusal = eval(twice.clone()).unwrap_err();
        assert_eq!(refusal["error"], "Invalid arguments", "{twice}");
        assert_eq!(
            refusal["violations"][0]["message"],
            "give the input as `input` or as `data`, not both, and neither with `undefinedInput`",
            "the schema's own reason, not the validator's echo of it"
        );
    }
    let tools = server.table().descriptors();
    let schema = &tools.iter().find(|d| d.name == "eval_expression").unwrap().input_schema;
    assert!(schema.get("not").is_some() && schema.get("anyOf").is_none(), "a root `not`, no root `anyOf`");
}

#[test]
fn dry_run_and_test_spec_state_their_arguments_shape() {
    let server = valem::server().unwrap();
    for (tool, args, at) in [
        ("dry_run", json!({ "spec": null }), "/spec"),
        ("dry_run", json!({ "spec": { "id": "m", "schema": {} }, "mutations": { "x": 1 } }), "/mutations"),
        ("test_spec", json!({ "spec": "m" }), "/spec"),
        ("test_spec", json!({ "spec": { "id": "m", "schema": {} }, "tests": [{ "given": [] }] }), "/tests/0/given"),
    ] {
        let refused = call(&server, tool, args.clone()).unwrap_err();
        assert_eq!(refused["error"], "Invalid arguments", "{tool} {args}: {refused}");
        assert_eq!(refused["violations"][0]["path"], at, "{tool} {args}: {refused}");
    }
    // validate_spec reports on anything, a non-object included: it is how a draft is checked.
    let report = call(&server, "validate_spec", json!({ "spec": null })).unwrap();
    assert_eq!(report["valid"], false);
}
