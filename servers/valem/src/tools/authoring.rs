//! The authoring tools: validate a spec, evaluate one expression, run a spec's tests, preview
//! a cycle. None of them registers a model.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tooltable::{Error, operation};

use super::errors::ModelError;
use crate::engine::findings::{Finding, Findings};
use crate::engine::jsonata::{Env, Expr, Library};
use crate::engine::model::{self, Model};
use crate::engine::spec::{self, TestCase};
use crate::engine::testing::{self, TestReport};
use crate::engine::limits;

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
#[operation(title = "Validate spec", read_only, idempotent, rest = "POST /authoring/validate", body = "spec")]
pub async fn validate_spec(args: SpecArgs) -> Result<Validation, Error> {
    let findings = match model::compile(&args.spec) {
        Err(f) => f,
        Ok((compiled, mut warnings)) => {
            let compiled = Arc::new(compiled);
            let report = testing::run(&compiled, &compiled.spec.tests);
            for (i, r) in report.results.iter().enumerate().filter(|(_, r)| !r.passed) {
                let why: Vec<&str> = r.failures.iter().map(|f| f.message.as_str()).collect();
                warnings.warning(format!("tests[{i}]"), format!("{:?} fails: {}", r.description, why.join("; ")));
            }
            warnings
        }
    };
    Ok(Validation { valid: !findings.has_errors(), errors: findings.errors, warnings: findings.warnings })
}

#[derive(Deserialize, JsonSchema)]
pub struct EvalArgs {
    /// A JSONata expression.
    pub expr: String,
    /// The input document (`data` is accepted as another name for it).
    #[serde(default, alias = "data")]
    pub input: Option<Value>,
    /// A library, as in a ModelSpec; its exports are bound as `$name`.
    #[serde(default)]
    pub library: Option<Value>,
    /// Bound as `$const`.
    #[serde(default)]
    pub constants: Option<Value>,
    /// Extra variables, `{"name": value}`, bound as `$name`.
    #[serde(default)]
    pub bindings: Option<Map<String, Value>>,
}

/// The answer: `{ok: true, undefined, result}` or `{ok: false, error, message}`.
#[derive(Serialize, JsonSchema, Default)]
pub struct EvalAnswer {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undefined: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// `compile`, `evaluation` or `library`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

fn failed(kind: &str, message: impl Into<String>) -> EvalAnswer {
    EvalAnswer { ok: false, error: Some(kind.into()), message: Some(message.into()), ..EvalAnswer::default() }
}

/// Evaluates one JSONata expression against a sample input, as model expressions are
/// evaluated: the value, or the exact compile or evaluation error (an answer, not a tool error).
#[operation(title = "Evaluate expression", read_only, idempotent, rest = "POST /authoring/eval")]
pub async fn eval_expression(args: EvalArgs) -> Result<EvalAnswer, Error> {
    let expr = match Expr::compile(&args.expr) {
        Ok(e) => e,
        Err(e) => return Ok(failed("compile", e.0)),
    };
    let input = args.input.unwrap_or(Value::Null);
    let bindings = args.bindings.unwrap_or_default();
    let constants = args.constants.unwrap_or(Value::Null);
    for v in std::iter::once(&input).chain(bindings.values()).chain(std::iter::once(&constants)) {
        if let Some(why) = limits::check_value(v) {
            return Ok(failed("evaluation", why));
        }
    }
    let library = match args.library {
        None => None,
        Some(value) => {
            let mut f = Findings::default();
            let layers = spec::library(Some(&value), &mut f);
            if let Some(e) = f.errors.first() {
                return Ok(failed("library", e.message.clone()));
            }
            let layers: Vec<&str> = layers.iter().map(String::as_str).collect();
            match Library::compile(&layers) {
                Ok(l) => Some(l),
                Err(e) => return Ok(failed("library", e.0)),
            }
        }
    };
    let env = match Env::new(&constants, library.as_ref()) {
        Ok(env) => env,
        Err(e) => return Ok(failed("library", e.0)),
    };
    let named: Vec<(String, &Value)> = bindings.iter().map(|(k, v)| (k.trim_start_matches('$').to_owned(), v)).collect();
    let named: Vec<(&str, &Value)> = named.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    Ok(match env.eval(&expr, &input, &named) {
        Ok(Some(result)) => EvalAnswer { ok: true, undefined: Some(false), result: Some(result), ..EvalAnswer::default() },
        Ok(None) => EvalAnswer { ok: true, undefined: Some(true), result: Some(Value::Null), ..EvalAnswer::default() },
        Err(e) => failed("evaluation", e.0),
    })
}

#[derive(Deserialize, JsonSchema)]
pub struct TestSpecArgs {
    /// A full ModelSpec.
    pub spec: Value,
    /// Cases to run instead of the spec's own `tests`: `{description?, given, expect}`.
    #[serde(default)]
    pub tests: Option<Vec<Value>>,
}

/// Runs a spec's embedded tests (or the given cases), each in a fresh throwaway runtime:
/// create, mutate `given`, compare `expect` (null matches null or missing; numbers as doubles).
#[operation(title = "Test spec", read_only, idempotent, rest = "POST /authoring/test")]
pub async fn test_spec(args: TestSpecArgs) -> Result<TestReport, ModelError> {
    let (compiled, _) = model::compile(&args.spec).map_err(ModelError::InvalidSpec)?;
    let cases: Vec<TestCase> = match args.tests {
        None => compiled.spec.tests.clone(),
        Some(raw) => raw
            .into_iter()
            .enumerate()
            .map(|(i, v)| serde_json::from_value(v).map_err(|e| ModelError::Invalid(format!("tests[{i}]: {e}"))))
            .collect::<Result<_, _>>()?,
    };
    Ok(testing::run(&Arc::new(compiled), &cases))
}

#[derive(Deserialize, JsonSchema)]
pub struct DryRunArgs {
    /// A full ModelSpec.
    pub spec: Value,
    /// Sample mutations, `{"$.path": value}`, applied in one cycle after creation.
    #[serde(default)]
    pub mutations: Option<Map<String, Value>>,
}

/// Creates the spec in an isolated runtime, applies the optional mutations, and returns the
/// merged state: the whole reactive cascade, previewed without registering anything.
#[operation(title = "Dry run", read_only, idempotent, rest = "POST /authoring/dry-run")]
pub async fn dry_run(args: DryRunArgs) -> Result<Value, ModelError> {
    let mut model = Model::create(&args.spec)?;
    if let Some(mutations) = &args.mutations {
        model.mutate(mutations)?;
    }
    Ok(model.merged())
}
