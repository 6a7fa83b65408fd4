//! The authoring tools: validate a spec, run a spec's tests, preview a cycle (evaluating one
//! expression is `evaluate.rs`). None of them registers a model.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tooltable::{Cx, tool};

use super::errors::ModelError;
use super::registry::Models;
use super::{addresses, spec_schema};
use crate::engine::compiled::Compiled;
use crate::engine::findings::Finding;
use crate::engine::model::{self, Model, admit_any};
use crate::engine::spec::TestCase;
use crate::engine::testing::{self, TestReport};

#[derive(Deserialize, JsonSchema)]
pub struct SpecArgs {
    /// A full ModelSpec.
    pub spec: Value,
}

#[derive(Serialize, JsonSchema)]
pub struct Validation {
    pub valid: bool,
    pub errors: Vec<Finding>,
    pub warnings: Vec<Finding>,
}

/// Validates a spec without creating it: shape, addresses, duplicates, expressions that do not
/// compile, undefined functions, dependency cycles (location `graph`), the schema; failing
/// embedded tests are warnings. Draft, validate, fix, repeat.
#[tool(
    title = "Validate spec",
    read_only,
    idempotent,
    rest = "POST /authoring/validate",
    body = "spec",
    open_world = false
)]
pub async fn validate_spec(cx: &Cx<Models>, args: SpecArgs) -> Result<Validation, ModelError> {
    super::shallow([&args.spec])?;
    let findings = match Models::evaluate(cx, move |_| model::compile(&args.spec)).await? {
        Err(f) => f,
        Ok((compiled, mut warnings)) => {
            let compiled = Arc::new(compiled);
            let report = run_tests(cx, &compiled, compiled.spec.tests.clone()).await?;
            for (i, r) in report.results.iter().enumerate().filter(|(_, r)| !r.passed) {
                let why: Vec<&str> = r.failures.iter().map(|f| f.message.as_str()).collect();
                warnings.warning(format!("tests[{i}]"), format!("{:?} fails: {}", r.description, why.join("; ")));
            }
            warnings
        }
    };
    Ok(Validation { valid: !findings.has_errors(), errors: findings.errors, warnings: findings.warnings })
}

/// Runs each case as a turn of its own on the evaluation pool, so that a spec of many slow
/// tests lets other calls through between its cases.
async fn run_tests(cx: &Cx<Models>, compiled: &Arc<Compiled>, cases: Vec<TestCase>) -> Result<TestReport, ModelError> {
    let mut results = Vec::with_capacity(cases.len());
    for (i, case) in cases.into_iter().enumerate() {
        let compiled = Arc::clone(compiled);
        results.push(Models::evaluate(cx, move |budget| testing::run_case(&compiled, i, &case, budget)).await?);
    }
    Ok(TestReport::of(results))
}

#[derive(Deserialize, JsonSchema)]
pub struct TestSpecArgs {
    /// A full ModelSpec.
    #[schemars(extend("type" = "object"))]
    pub spec: Value,
    /// Cases to run instead of the spec's own `tests`: `{description?, given, expect}`.
    #[serde(default)]
    #[schemars(transform = spec_schema::test_cases)]
    pub tests: Option<Vec<Value>>,
}

/// Runs a spec's embedded tests (or the given cases), each in a fresh throwaway runtime:
/// create, mutate `given`, compare `expect` (null matches null or missing; numbers as doubles).
#[tool(title = "Test spec", read_only, idempotent, rest = "POST /authoring/test", open_world = false)]
pub async fn test_spec(cx: &Cx<Models>, args: TestSpecArgs) -> Result<TestReport, ModelError> {
    super::shallow(std::iter::once(&args.spec).chain(args.tests.iter().flatten()))?;
    let spec = args.spec;
    let (compiled, _) = Models::evaluate(cx, move |_| model::compile(&spec)).await?.map_err(ModelError::InvalidSpec)?;
    let cases: Vec<TestCase> = match args.tests {
        None => compiled.spec.tests.clone(),
        Some(raw) => raw
            .into_iter()
            .enumerate()
            .map(|(i, v)| serde_json::from_value(v).map_err(|e| ModelError::Invalid(format!("tests[{i}]: {e}"))))
            .collect::<Result<_, _>>()?,
    };
    run_tests(cx, &Arc::new(compiled), cases).await
}

#[derive(Deserialize, JsonSchema)]
pub struct DryRunArgs {
    /// A full ModelSpec.
    #[schemars(extend("type" = "object"))]
    pub spec: Value,
    /// Sample mutations, `{"$.path": value}`, applied in one cycle after creation.
    #[serde(default)]
    #[schemars(transform = addresses::keys)]
    pub mutations: Option<Map<String, Value>>,
}

/// Creates the spec in an isolated runtime, applies the optional mutations, and returns the
/// merged state: the whole reactive cascade, previewed without registering anything.
#[tool(title = "Dry run", read_only, idempotent, rest = "POST /authoring/dry-run", open_world = false)]
pub async fn dry_run(cx: &Cx<Models>, args: DryRunArgs) -> Result<Value, ModelError> {
    super::shallow(std::iter::once(&args.spec).chain(args.mutations.iter().flat_map(|m| m.values())))?;
    Models::evaluate(cx, move |budget| {
        let mut model = Model::create(&args.spec, budget, &admit_any)?;
        if let Some(mutations) = &args.mutations {
            model.mutate(mutations, budget, &admit_any)?;
        }
        Ok(model.merged(budget))
    })
    .await?
}
