//! What one evaluation in a cycle did, as `explain` and `includeTraces` show it, and what a
//! cycle hands back.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::spec::Policy;

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    /// The address written (a derivation or meta) or checked (a constraint; `$` for the document).
    pub target_path: String,
    pub expression: String,
    /// The addresses the expression reads.
    pub input_paths: Vec<String>,
    pub result: Value,
    /// For a constraint: whether it held.
    pub constraint_passed: Option<bool>,
    pub error_message: Option<String>,
}

/// A constraint that did not hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConstraintFailure {
    pub constraint_id: String,
    pub message: String,
    pub policy: Policy,
}

/// What a committed cycle changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CycleOutcome {
    pub mutated_paths: Vec<String>,
    pub derived_updated: Vec<String>,
    pub meta_updated: Vec<String>,
    pub flagged: Vec<ConstraintFailure>,
    pub dispatched_effects: Vec<Value>,
    pub traces: Vec<Trace>,
}
