//! Every fenced example in every guide runs against the engine, so a guide cannot drift from
//! what the service does. A fence names its kind:
//! - ` ```json spec `: a ModelSpec; it validates without a finding, passes its embedded tests,
//!   and is created as a model for the blocks after it;
//! - ` ```json eval `: `eval_expression` arguments (`expr`, `input`, ...) with the answer's
//!   `result`, or `"undefined": true`, or the `error` kind;
//! - ` ```json call `: `{tool, arguments, result}` or `{tool, arguments, error}`: a tool called
//!   on the models created so far, its answer equal to `result`, or its failure body holding
//!   every member of `error`.
//!
//! Any other fence is refused: a guide holds no unchecked example.

use serde_json::{Value, json};
use valem::resources::GUIDES;

use crate::support::in_process::call;

/// The fenced blocks of a markdown text: (info string, body, line of the fence).
fn fences(text: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String, usize)> = None;
    for (n, line) in text.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.trim().to_owned(), String::new(), n + 1)),
            (Some(_), Some("")) => out.extend(open.take()),
            (Some((_, body, _)), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "a fence is never closed");
    out
}

/// Whether every member of `expected` is in `actual` with the same value.
fn holds(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e.iter().all(|(k, v)| a.get(k).is_some_and(|got| holds(v, got))),
        _ => expected == actual,
    }
}

fn check_spec(server: &tooltable::Server<valem::tools::registry::Models>, spec: &Value, at: &str) {
    let validation = call(server, "validate_spec", json!({ "spec": spec })).unwrap();
    assert_eq!(validation, json!({ "valid": true, "errors": [], "warnings": [] }), "{at}");
    let report = call(server, "test_spec", json!({ "spec": spec })).unwrap();
    assert_eq!(report["failed"], 0, "{at}: {report}");
    assert!(report["total"].as_u64().unwrap() > 0, "{at}: a spec example carries tests");
    let created = call(server, "create_model", json!({ "spec": spec })).unwrap();
    assert_eq!(created["id"], spec["id"], "{at}: each spec example has an id of its own");
}

fn check_eval(server: &tooltable::Server<valem::tools::registry::Models>, example: &Value, at: &str) {
    let mut args = example.clone();
    let args = args.as_object_mut().unwrap();
    let expected = [args.remove("result"), args.remove("undefined"), args.remove("error")];
    let answer = call(server, "eval_expression", Value::Object(args.clone())).unwrap();
    match expected {
        [Some(result), None, None] => {
            assert_eq!(
                (&answer["ok"], &answer["undefined"], &answer["result"]),
                (&json!(true), &json!(false), &result),
                "{at}"
            )
        }
        [None, Some(Value::Bool(true)), None] => assert_eq!(answer["undefined"], true, "{at}: {answer}"),
        [None, None, Some(kind)] => {
            assert_eq!((&answer["ok"], &answer["error"]), (&json!(false), &kind), "{at}: {answer}")
        }
        _ => panic!("{at}: an eval example gives one of result, undefined: true, error"),
    }
}

fn check_call(server: &tooltable::Server<valem::tools::registry::Models>, example: &Value, at: &str) {
    let tool = example["tool"].as_str().unwrap_or_else(|| panic!("{at}: a call names its tool"));
    let answer = call(server, tool, example["arguments"].clone());
    match (example.get("result"), example.get("error"), answer) {
        (Some(result), None, Ok(got)) => assert_eq!(&got, result, "{at}"),
        (None, Some(error), Err(body)) => assert!(holds(error, &body), "{at}: {body}"),
        (_, _, answer) => panic!("{at}: {answer:?}"),
    }
}

#[test]
fn every_example_in_every_guide_runs_as_shown() {
    let mut checked = 0;
    for guide in GUIDES {
        let server = valem::server().unwrap();
        for (info, body, line) in fences(guide.text) {
            let at = format!("{}.md line {line}", guide.name);
            let example: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{at}: {e}"));
            match info.as_str() {
                "json spec" => check_spec(&server, &example, &at),
                "json eval" => check_eval(&server, &example, &at),
                "json call" => check_call(&server, &example, &at),
                other => panic!("{at}: the fence `{other}` is none of json spec, json eval, json call"),
            }
            checked += 1;
        }
    }
    println!("guide examples checked: {checked}");
    assert!(checked >= 20, "the guides show their rules by example ({checked})");
}
