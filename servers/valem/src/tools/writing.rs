//! `mutate`: one reactive cycle on a model; and what every write shares: the cycle, its audit
//! record, the notice to the state's subscribers and the result.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tooltable::{Cx, tool};

use super::addresses;
use super::errors::ModelError;
use super::registry::{Models, Outcome};
use crate::audit;
use crate::engine::budget::Budget;
use crate::engine::model::Model;
use crate::engine::path::Path;
use crate::engine::trace::{ConstraintFailure, CycleOutcome, Trace};

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MutateArgs {
    pub id: String,
    /// `{"$.path": value}`: every value is checked, then all are written in one cycle.
    #[schemars(transform = addresses::keys)]
    pub mutations: Map<String, Value>,
    /// Also return every derivation and constraint trace of the cycle (what `explain` serves).
    #[serde(default)]
    pub include_traces: bool,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MutationResult {
    pub success: bool,
    pub mutated_paths: Vec<String>,
    /// The derivations re-evaluated, in evaluation order.
    pub derived_updated: Vec<String>,
    /// The meta values re-evaluated, as `path#property`.
    pub meta_updated: Vec<String>,
    pub flagged_constraints: Vec<ConstraintFailure>,
    /// Effect requests, emitted as data for the caller to carry out.
    pub dispatched_effects: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traces: Option<Vec<Trace>>,
}

/// Writes values at canonical addresses and runs the reactive cycle: dependent derivations
/// recompute, meta values and constraints re-evaluate, effects are emitted. A schema violation
/// or a rollback constraint leaves the model unchanged.
#[tool(
    title = "Mutate",
    rest = "POST /models/{id}/mutations",
    body = "mutations",
    open_world = false,
    destructive = false
)]
pub async fn mutate(cx: &Cx<Models>, args: MutateArgs) -> Result<MutationResult, ModelError> {
    super::shallow(args.mutations.values())?;
    let mutations = args.mutations;
    let writes = move |_: &Model, _: &Budget| {
        mutations.into_iter().map(|(address, value)| Ok((addresses::parse(&address)?, value))).collect()
    };
    write(cx, &args.id, Source::MUTATE, args.include_traces, writes).await
}

/// Where a write comes from, as the history and the audit trail name it.
pub struct Source {
    pub history: &'static str,
    pub audit: &'static str,
}

impl Source {
    pub const MUTATE: Source = Source { history: "mutate", audit: "client" };
    pub const PATCH: Source = Source { history: "patch", audit: "patch" };
}

/// Runs the writes `plan` makes of the model `id` as one cycle, alone on that model; a cycle
/// that writes something is sealed onto the audit trail and told to the state's subscribers.
/// A plan of no writes changes and records nothing.
pub async fn write(
    cx: &Cx<Models>,
    id: &str,
    source: Source,
    include_traces: bool,
    plan: impl FnOnce(&Model, &Budget) -> Result<Vec<(Path, Value)>, ModelError> + Send + 'static,
) -> Result<MutationResult, ModelError> {
    let (model_id, actor) = (id.to_owned(), cx.principal().cloned());
    let outcome = Models::change(cx, id, move |m, budget, admit| {
        let writes = plan(m, budget)?;
        if writes.is_empty() {
            return Ok(Outcome::Unchanged(None));
        }
        let outcome = m.write(writes, source.history, budget, admit)?;
        let mutations = m.history.iter().next_back().map(|h| h.mutations.clone()).unwrap_or_default();
        let record =
            audit::record(&model_id, &m.compiled.spec.version, source.audit, actor.as_ref(), &outcome, mutations);
        Ok(Outcome::Changed(Some(outcome), Some(record)))
    })
    .await?;
    let outcome = match outcome {
        Some(outcome) => {
            cx.resource_updated(&super::state_uri(id));
            cx.tell(id);
            outcome
        }
        None => CycleOutcome::default(),
    };
    Ok(MutationResult {
        success: true,
        mutated_paths: outcome.mutated_paths,
        derived_updated: outcome.derived_updated,
        meta_updated: outcome.meta_updated,
        flagged_constraints: outcome.flagged,
        dispatched_effects: outcome.dispatched_effects,
        traces: include_traces.then_some(outcome.traces),
    })
}
