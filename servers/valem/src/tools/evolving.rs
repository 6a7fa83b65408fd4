//! `evolve_spec`: a model's spec changed in place, its values kept.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tooltable::{Cx, operation};

use super::errors::ModelError;
use super::registry::Models;
use crate::engine::evolution::{self, DiffError};

#[derive(Deserialize, JsonSchema)]
pub struct EvolveArgs {
    pub id: String,
    /// A SpecEvolution: targeted upserts and removals by section, or wholesale replacements
    /// (`newSchema`, `newViewDefinition`, `newConstants`), `newVersion`, `expectedVersion`, `backfill`.
    pub evolution: Map<String, Value>,
}

#[derive(Serialize, JsonSchema)]
pub struct Evolved {
    pub id: String,
    pub version: String,
}

/// Changes a model's spec in place, keeping its values: removals then upserts per section,
/// the evolved spec validated in full, `backfill` written into absent or null fields, every
/// derivation recomputed. With `expectedVersion`, a stale version is a `Version conflict`; a
/// schema that would refuse held values lists them as `incompatibilities`. Snapshot first.
#[operation(
    title = "Evolve spec",
    destructive,
    rest = "POST /models/{id}/spec/evolve",
    body = "evolution",
    open_world = false
)]
pub async fn evolve_spec(cx: &Cx<Models>, args: EvolveArgs) -> Result<Evolved, ModelError> {
    super::shallow(args.evolution.values())?;
    let (id, evolution) = (args.id.clone(), args.evolution);
    let version = Models::change(cx, &args.id, move |m, budget, admit| {
        let evolved = evolution::apply(&m.compiled.spec.raw, &evolution).map_err(|e| match e {
            DiffError::Conflict { expected, actual } => ModelError::VersionConflict { expected, actual },
            DiffError::Invalid(m) => ModelError::InvalidEvolution(m),
        })?;
        m.evolve(&id, evolved, budget, admit)?;
        Ok(m.compiled.spec.version.clone())
    })
    .await?;
    cx.server().resource_updated(&super::state_uri(&args.id));
    Ok(Evolved { id: args.id, version })
}
