//! The reading tools: state (projected), one field, a field's effective schema, traces, history.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tooltable::{Cx, tool};

use super::addresses;
use super::errors::ModelError;
use super::projection;
use super::registry::Models;
use crate::engine::cycle::CONSTRAINT_TARGET;
use crate::engine::schema;
use crate::engine::trace::Trace;

#[derive(Deserialize, JsonSchema)]
pub struct GetStateArgs {
    pub id: String,
    /// An ISO-8601 instant: the state as the newest history entry at or before it left it.
    #[serde(default)]
    #[schemars(extend("format" = "date-time"))]
    pub at: Option<String>,
    /// Canonical addresses (e.g. ["$.order", "$.totals"]): only these subtrees are returned,
    /// at their addresses; absent ones are skipped.
    #[serde(default)]
    #[schemars(transform = addresses::list)]
    pub paths: Option<Vec<String>>,
    /// Containers nested deeper than this collapse to "<object: N fields>" / "<array: N items>".
    #[serde(default)]
    pub depth: Option<usize>,
}

/// The model's merged state (written values and derived values). Narrow it with `paths` and
/// `depth` on large models; `at` reads an earlier state from the history.
#[tool(title = "Get state", read_only, idempotent, rest = "GET /models/{id}/state", open_world = false)]
pub async fn get_state(cx: &Cx<Models>, args: GetStateArgs) -> Result<Value, ModelError> {
    let paths =
        args.paths.as_deref().unwrap_or_default().iter().map(|p| addresses::parse(p)).collect::<Result<Vec<_>, _>>()?;
    let at = match &args.at {
        None => None,
        Some(text) => Some(
            DateTime::parse_from_rfc3339(text)
                .map_err(|e| ModelError::Invalid(format!("`at` {text:?} is not an ISO-8601 instant: {e}")))?
                .with_timezone(&Utc),
        ),
    };
    let id = args.id.clone();
    let doc = Models::compute(cx, &args.id, move |m, budget| match at {
        None => Ok(m.merged(budget)),
        Some(at) => m
            .merged_at(at, budget)
            .ok_or_else(|| ModelError::Missing(format!("no state of {id:?} is recorded at or before {at}"))),
    })
    .await?;
    let doc = if args.paths.is_some() { projection::select(&doc, &paths) } else { doc };
    Ok(match args.depth {
        Some(depth) => projection::cap(&doc, depth),
        None => doc,
    })
}

#[derive(Deserialize, JsonSchema)]
pub struct FieldArgs {
    pub id: String,
    /// A canonical address, e.g. "$.totals.grand".
    #[schemars(transform = addresses::one)]
    pub path: String,
}

/// The value at one address of the merged state; null when nothing is there.
#[tool(title = "Get field", read_only, idempotent, rest = "GET /models/{id}/state/{path}", open_world = false)]
pub async fn get_field(cx: &Cx<Models>, args: FieldArgs) -> Result<Value, ModelError> {
    let path = addresses::parse(&args.path)?;
    let doc = Models::compute(cx, &args.id, |m, budget| Ok(m.merged(budget))).await?;
    Ok(path.get(&doc).cloned().unwrap_or(Value::Null))
}

/// A field's schema with the live meta values laid over it (current minimum, maximum,
/// readOnly, `"required": true`, relevant as x-valem-relevant, ...): what a write there must
/// satisfy now.
#[tool(
    title = "Get effective schema",
    read_only,
    idempotent,
    rest = "GET /models/{id}/schema/{path}",
    open_world = false
)]
pub async fn get_effective_schema(cx: &Cx<Models>, args: FieldArgs) -> Result<Value, ModelError> {
    let path = addresses::parse(&args.path)?;
    Models::read(cx, &args.id, |m| Ok(schema::effective(&m.compiled.spec.schema, &path, m.state.meta.get(&path)))).await
}

#[derive(Deserialize, JsonSchema)]
pub struct ExplainArgs {
    pub id: String,
    /// Traces whose target is at or under this address are returned; `$constraint:<id>` names
    /// a constraint's evaluations.
    #[schemars(transform = addresses::target)]
    pub path: String,
    /// Only the newest N traces.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// How values at and under an address were computed: the derivation, meta and constraint
/// traces of recent cycles (expression, inputs, result, error), oldest first.
#[tool(title = "Explain", read_only, idempotent, rest = "GET /models/{id}/explain/{path}", open_world = false)]
pub async fn explain(cx: &Cx<Models>, args: ExplainArgs) -> Result<Vec<Trace>, ModelError> {
    if !args.path.starts_with(CONSTRAINT_TARGET) {
        addresses::parse(&args.path)?;
    }
    Models::read(cx, &args.id, |m| {
        let matching: Vec<&Trace> = m.traces.iter().filter(|t| is_at_or_under(&t.target_path, &args.path)).collect();
        let skip = args.limit.map_or(0, |n| matching.len().saturating_sub(n));
        Ok(matching.into_iter().skip(skip).cloned().collect())
    })
    .await
}

/// The ISO-8601 timestamps of the kept history entries (at most 50, creation first), in
/// commit order: each is a valid `at` for `get_state`.
#[tool(title = "Get history", read_only, idempotent, rest = "GET /models/{id}/history", open_world = false)]
pub async fn get_history(cx: &Cx<Models>, args: super::models::ModelId) -> Result<Vec<String>, ModelError> {
    Models::read(cx, &args.id, |m| Ok(m.history.iter().map(|h| h.timestamp.clone()).collect())).await
}

/// Whether `target` is `path` or an address under it (`$.total` is not under `$.tot`).
fn is_at_or_under(target: &str, path: &str) -> bool {
    path == "$" || target.strip_prefix(path).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}
