//! Every example spec written for the original service (the folder `VALEM_EXAMPLES_DIR` names:
//! their licence keeps them out of the repository) passes its embedded tests through the
//! `test_spec` tool, and `create_model` then `mutate` reproduces what each test expects. Where
//! the variable names no such folder, both tests are ignored, saying so.

use std::path::PathBuf;

use serde_json::{Value, json};
use valem::engine::testing::matches;

use crate::support::in_process::call;

/// Every example, by name; panics on one that cannot be read: an example is never skipped.
fn examples() -> Vec<(String, Value)> {
    let dir = test_support::VALEM_EXAMPLES.path();
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let read = |f: &PathBuf| -> Result<Value, String> {
        let text = std::fs::read_to_string(f).map_err(|e| e.to_string())?;
        serde_json::from_str(&text).map_err(|e| e.to_string())
    };
    let examples = files.iter().map(|f| {
        let name = f.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        (name, read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display())))
    });
    examples.collect()
}

#[test]
#[cfg_attr(not(has_valem_examples), ignore = "needs the original service's example specs: set VALEM_EXAMPLES_DIR")]
fn every_example_passes_its_embedded_tests() {
    let examples = examples();
    let server = valem::server().unwrap();
    let (mut passing, mut cases, mut failures) = (0, 0, Vec::new());
    for (name, spec) in &examples {
        let report = match call(&server, "test_spec", json!({ "spec": spec })) {
            Ok(r) => r,
            Err(body) => {
                failures.push(format!("{name}: {body}"));
                continue;
            }
        };
        cases += report["total"].as_u64().unwrap_or(0);
        if report["failed"] == 0 {
            passing += 1;
        }
        for r in report["results"].as_array().unwrap().iter().filter(|r| r["passed"] != true) {
            failures.push(format!("{name}: {}: {}", r["description"], r["failures"]));
        }
    }
    println!("{passing} of {} example specs pass test_spec ({cases} embedded test cases)", examples.len());
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}

#[test]
#[cfg_attr(not(has_valem_examples), ignore = "needs the original service's example specs: set VALEM_EXAMPLES_DIR")]
fn create_then_mutate_reproduces_every_expectation() {
    let examples = examples();
    let server = valem::server().unwrap();
    let mut failures = Vec::new();
    for (name, spec) in &examples {
        for (i, case) in spec["tests"].as_array().cloned().unwrap_or_default().iter().enumerate() {
            let id = call(&server, "create_model", json!({ "spec": spec })).unwrap()["id"].as_str().unwrap().to_owned();
            call(&server, "mutate", json!({ "id": id, "mutations": case["given"] })).unwrap();
            for (path, expected) in case["expect"].as_object().unwrap() {
                let actual = call(&server, "get_field", json!({ "id": id, "path": path })).ok();
                if !matches(expected, actual.as_ref()) {
                    failures.push(format!("{name} tests[{i}] {path}: expected {expected}, got {actual:?}"));
                }
            }
            call(&server, "delete_model", json!({ "id": id })).unwrap();
        }
    }
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}
