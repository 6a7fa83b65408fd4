//! `eval_expression`: one JSONata expression on a sample input, evaluated as model expressions
//! are (same seam, same limits), with optional library, constants and variables.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use tooltable::{Cx, tool};

use super::errors::ModelError;
use super::registry::Models;
use crate::engine::budget::Budget;
use crate::engine::findings::Findings;
use crate::engine::jsonata::{Env, Expr, Library};
use crate::engine::{limits, spec};

#[derive(Deserialize, JsonSchema)]
#[schemars(transform = one_input)]
pub struct EvalArgs {
    /// A JSONata expression.
    pub expr: String,
    /// The input document. Absent: `{}`; `null` is a null input.
    #[serde(default, deserialize_with = "present")]
    #[schemars(transform = no_default)]
    pub input: Option<Value>,
    /// Another name for `input`, as the JSONata test suite calls it; give one of the two.
    #[serde(default, deserialize_with = "present")]
    #[schemars(transform = no_default)]
    pub data: Option<Value>,
    /// A library, as in a ModelSpec; its exports are bound as `$name`.
    #[serde(default)]
    pub library: Option<Value>,
    /// Evaluate with no input at all (JSONata's undefined, so `$` is undefined), as the JSONata
    /// test suite runs its cases without data; give no `input` with it.
    #[serde(default, rename = "undefinedInput")]
    pub undefined_input: bool,
    /// Bound as `$const`.
    #[serde(default)]
    pub constants: Option<Value>,
    /// Extra variables, `{"name": value}`, bound as `$name`.
    #[serde(default)]
    pub bindings: Option<Map<String, Value>>,
}

/// `input` and `data` are one argument by two names, and `undefinedInput` means neither: the
/// schema refuses those combinations itself (with a root `not`, which hosts accept where they
/// refuse a root `anyOf`), and says why.
fn one_input(schema: &mut schemars::Schema) {
    let undefined_with = |name: &str| serde_json::json!({ "properties": { "undefinedInput": { "const": true } }, "required": ["undefinedInput", name] });
    schema.insert(
        "not".into(),
        serde_json::json!({
            "description": ONE_INPUT,
            "anyOf": [{ "required": ["input", "data"] }, undefined_with("input"), undefined_with("data")],
        }),
    );
}

const ONE_INPUT: &str = "give the input as `input` or as `data`, not both, and neither with `undefinedInput`";

/// A field that is there, even as `null`, is `Some`: serde would read `null` as `None`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Absent is not `null` here, so the schema names no default.
fn no_default(schema: &mut schemars::Schema) {
    schema.remove("default");
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
#[tool(title = "Evaluate expression", read_only, idempotent, rest = "POST /authoring/eval", open_world = false)]
pub async fn eval_expression(cx: &Cx<Models>, args: EvalArgs) -> Result<EvalAnswer, ModelError> {
    // Checked here, not on the pool: its threads have small stacks, and a deep value's drop recurses.
    let given = [&args.input, &args.data, &args.constants].into_iter().flatten();
    for v in given.chain(args.bindings.iter().flat_map(|b| b.values())) {
        if let Some(why) = limits::check_value(v) {
            return Ok(failed("evaluation", why));
        }
    }
    super::shallow(&args.library)?;
    Models::evaluate(cx, move |budget| evaluate(args, budget)).await?
}

fn evaluate(args: EvalArgs, budget: &Budget) -> Result<EvalAnswer, ModelError> {
    let input = match (args.input, args.data, args.undefined_input) {
        (None, None, true) => None,
        (given, None, false) | (None, given, false) => Some(given.unwrap_or_else(|| Value::Object(Map::new()))),
        // The inputSchema refuses the rest before the call; a caller past it is told the same.
        _ => return Err(ModelError::Invalid(ONE_INPUT.into())),
    };
    let expr = match Expr::compile(&args.expr) {
        Ok(e) => e,
        Err(e) => return Ok(failed("compile", e.0)),
    };
    let bindings = args.bindings.unwrap_or_default();
    let constants = args.constants.unwrap_or(Value::Null);
    let library = match args.library.map(|l| library(&l)).transpose() {
        Ok(l) => l,
        Err(why) => return Ok(failed("library", why)),
    };
    let env = match Env::new(&constants, library.as_ref(), budget) {
        Ok(env) => env,
        Err(e) => return Ok(failed("library", e.0)),
    };
    let named: Vec<(String, &Value)> =
        bindings.iter().map(|(k, v)| (k.trim_start_matches('$').to_owned(), v)).collect();
    let named: Vec<(&str, &Value)> = named.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    Ok(match env.eval_optional(&expr, input.as_ref(), &named) {
        Ok(Some(result)) => {
            EvalAnswer { ok: true, undefined: Some(false), result: Some(result), ..EvalAnswer::default() }
        }
        Ok(None) => EvalAnswer { ok: true, undefined: Some(true), result: Some(Value::Null), ..EvalAnswer::default() },
        Err(e) => failed("evaluation", e.0),
    })
}

/// Compiles a library given as in a ModelSpec; `Err` says why it does not compile.
fn library(value: &Value) -> Result<Library, String> {
    let mut f = Findings::default();
    let layers = spec::library(Some(value), &mut f);
    if let Some(e) = f.errors.first() {
        return Err(e.message.clone());
    }
    let layers: Vec<&str> = layers.iter().map(String::as_str).collect();
    Library::compile(&layers).map_err(|e| e.0)
}
