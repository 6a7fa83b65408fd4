//! `mutate`: one reactive cycle on a model.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tooltable::{Cx, operation};

use super::errors::ModelError;
use super::registry::Models;
use crate::engine::trace::{ConstraintFailure, Trace};

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MutateArgs {
    pub id: String,
    /// `{"$.path": value}`: every value is checked, then all are written in one cycle.
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
#[operation(title = "Mutate", rest = "POST /models/{id}/mutations", body = "mutations", open_world = false, destructive = false)]
pub async fn mutate(cx: &Cx<Models>, args: MutateArgs) -> Result<MutationResult, ModelError> {
    super::shallow(args.mutations.values())?;
    let mutations = args.mutations;
    let outcome =
        Models::change(cx, &args.id, move |m, budget, admit| Ok(m.mutate(&mutations, budget, admit)?)).await?;
    cx.server().resource_updated(&super::state_uri(&args.id));
    Ok(MutationResult {
        success: true,
        mutated_paths: outcome.mutated_paths,
        derived_updated: outcome.derived_updated,
        meta_updated: outcome.meta_updated,
        flagged_constraints: outcome.flagged,
        dispatched_effects: outcome.dispatched_effects,
        traces: args.include_traces.then_some(outcome.traces),
    })
}
