//! `get_audit` and `verify_audit`: the hash-chained record of every committed write.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tooltable::{Cx, tool};

use super::errors::ModelError;
use super::models::ModelId;
use super::registry::Models;
use crate::audit::Verification;

/// The records `get_audit` returns when no `limit` is given, and the most it returns.
pub const AUDIT_PAGE: usize = 100;
pub const AUDIT_MAX: usize = 10_000;

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditArgs {
    pub id: String,
    /// Only records with a mutation key, derived address or trace target starting with this text.
    #[serde(default)]
    pub path_prefix: Option<String>,
    /// An ISO-8601 instant: records at or after it.
    #[serde(default)]
    #[schemars(extend("format" = "date-time"))]
    pub from: Option<String>,
    /// An ISO-8601 instant: records before it.
    #[serde(default)]
    #[schemars(extend("format" = "date-time"))]
    pub to: Option<String>,
    /// The most records, newest first: 100 when absent or not positive, at most 10000.
    #[serde(default)]
    pub limit: Option<i64>,
}

fn instant(name: &str, text: &Option<String>) -> Result<Option<DateTime<Utc>>, ModelError> {
    text.as_deref()
        .map(|t| {
            DateTime::parse_from_rfc3339(t)
                .map(|at| at.with_timezone(&Utc))
                .map_err(|e| ModelError::Invalid(format!("`{name}` {t:?} is not an ISO-8601 instant: {e}")))
        })
        .transpose()
}

/// The audit trail of a model, newest first: one record per committed write (mutations,
/// derived addresses, traces, flagged constraint and dispatched effect ids, source, sequence,
/// hashes). Filter by `pathPrefix` and the `from`/`to` window.
#[tool(title = "Get audit", read_only, idempotent, rest = "GET /models/{id}/audit", open_world = false)]
pub async fn get_audit(cx: &Cx<Models>, args: AuditArgs) -> Result<Vec<Value>, ModelError> {
    let (from, to) = (instant("from", &args.from)?, instant("to", &args.to)?);
    let limit = match args.limit {
        Some(n) if n > 0 => usize::try_from(n).unwrap_or(AUDIT_MAX).min(AUDIT_MAX),
        _ => AUDIT_PAGE,
    };
    let within = move |record: &Value| {
        let at = record.get("timestamp").and_then(Value::as_str).and_then(|t| DateTime::parse_from_rfc3339(t).ok());
        let at = at.map(|at| at.with_timezone(&Utc));
        from.is_none_or(|from| at.is_some_and(|at| at >= from)) && to.is_none_or(|to| at.is_some_and(|at| at < to))
    };
    let prefix = args.path_prefix.unwrap_or_default();
    Models::audit_newest(cx, &args.id, limit, move |r| within(r) && touches(r, &prefix)).await
}

/// Whether a mutation key, a derived address or a trace target of `record` starts with `prefix`.
fn touches(record: &Value, prefix: &str) -> bool {
    let keys =
        record.get("mutations").and_then(Value::as_object).into_iter().flat_map(|m| m.keys().map(String::as_str));
    let derived =
        record.get("derivedUpdated").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
    let traces = record.get("traces").and_then(Value::as_array).into_iter().flatten();
    let targets = traces.filter_map(|t| t.get("targetPath").and_then(Value::as_str));
    prefix.is_empty() || keys.chain(derived).chain(targets).any(|p| p.starts_with(prefix))
}

/// Walks the model's audit trail in order and checks its hash chain: the first altered,
/// reordered or deleted record is named by its sequence.
#[tool(title = "Verify audit", read_only, idempotent, rest = "GET /models/{id}/audit/verify", open_world = false)]
pub async fn verify_audit(cx: &Cx<Models>, args: ModelId) -> Result<Verification, ModelError> {
    Models::verify_audit(cx, &args.id).await
}
