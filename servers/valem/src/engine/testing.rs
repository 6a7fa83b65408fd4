//! `test_spec`: each case in a fresh runtime (create, mutate `given`, compare `expect`).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use super::budget::Budget;
use super::compiled::Compiled;
use super::model::{Model, ModelFailure, admit_any};
use super::path::Path;
use super::schema;
use super::spec::TestCase;

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct TestReport {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub results: Vec<CaseResult>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CaseResult {
    pub description: String,
    pub passed: bool,
    pub failures: Vec<CaseFailure>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CaseFailure {
    pub path: String,
    pub expected: Value,
    pub actual: Value,
    pub message: String,
}

impl TestReport {
    pub fn of(results: Vec<CaseResult>) -> TestReport {
        let passed = results.iter().filter(|r| r.passed).count();
        TestReport { total: results.len(), passed, failed: results.len() - passed, results }
    }
}

/// Runs each case, each cycle within `budget`.
pub fn run(compiled: &Arc<Compiled>, cases: &[TestCase], budget: &Budget) -> TestReport {
    TestReport::of(cases.iter().enumerate().map(|(i, case)| run_case(compiled, i, case, budget)).collect())
}

/// Case `index`: create, mutate `given`, compare `expect`.
pub fn run_case(compiled: &Arc<Compiled>, index: usize, case: &TestCase, budget: &Budget) -> CaseResult {
    let description = case.description.clone().unwrap_or_else(|| format!("case {index}"));
    let failures = match Model::from_compiled(Arc::clone(compiled), budget, &admit_any) {
        Err(e) => vec![whole_case_failure("the model could not be created", &e)],
        Ok(mut model) => match model.mutate(&case.given, budget, &admit_any) {
            Err(e) => vec![whole_case_failure("`given` was refused", &e)],
            Ok(_) => compare(&model, &case.expect, budget),
        },
    };
    CaseResult { description, passed: failures.is_empty(), failures }
}

fn whole_case_failure(what: &str, e: &ModelFailure) -> CaseFailure {
    CaseFailure {
        path: "$".into(),
        expected: Value::Null,
        actual: Value::Null,
        message: format!("{what}: {}", e.describe()),
    }
}

fn compare(model: &Model, expect: &Map<String, Value>, budget: &Budget) -> Vec<CaseFailure> {
    let merged = model.merged(budget);
    let mut failures = Vec::new();
    for (address, expected) in expect {
        let path = match Path::parse(address) {
            Ok(p) => p,
            Err(e) => {
                failures.push(CaseFailure {
                    path: address.clone(),
                    expected: expected.clone(),
                    actual: Value::Null,
                    message: e.0,
                });
                continue;
            }
        };
        if let Some(Value::Object(meta)) = expected.get("$meta") {
            let effective = schema::effective(&model.compiled.spec.schema, &path, model.state.meta.get(&path));
            for (property, want) in meta {
                let keyword = if property == "relevant" { "x-valem-relevant" } else { property.as_str() };
                let got = effective.get(keyword);
                if !matches(want, got) {
                    failures.push(mismatch(&format!("{address}#{property}"), want, got));
                }
            }
            continue;
        }
        let got = path.get(&merged);
        if !matches(expected, got) {
            failures.push(mismatch(address, expected, got));
        }
    }
    failures
}

fn mismatch(at: &str, expected: &Value, actual: Option<&Value>) -> CaseFailure {
    let actual = actual.cloned();
    let message = match &actual {
        None => format!("{at}: expected {expected}, but it is missing"),
        Some(a) => format!("{at}: expected {expected}, got {a}"),
    };
    CaseFailure { path: at.to_owned(), expected: expected.clone(), actual: actual.unwrap_or(Value::Null), message }
}

/// Expected null matches null or missing; numbers compare as doubles; containers element-wise.
pub fn matches(expected: &Value, actual: Option<&Value>) -> bool {
    match (expected, actual) {
        (Value::Null, None | Some(Value::Null)) => true,
        (_, None) => false,
        (Value::Number(a), Some(Value::Number(b))) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Some(Value::Array(b))) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| matches(x, Some(y)))
        }
        (Value::Object(a), Some(Value::Object(b))) => a.len() == b.len() && a.iter().all(|(k, x)| matches(x, b.get(k))),
        (a, Some(b)) => a == b,
    }
}
