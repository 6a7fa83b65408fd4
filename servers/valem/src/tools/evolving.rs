//! `evolve_spec`: a model's spec changed in place, its values kept.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tooltable::{Cx, tool};

use super::errors::ModelError;
use super::registry::{Models, Outcome};
use super::spec_schema;
use crate::engine::evolution::{self, DiffError};

#[derive(Deserialize)]
pub struct EvolveArgs {
    pub id: String,
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
#[tool(
    title = "Evolve spec",
    destructive,
    // The inputSchema embeds the whole SpecEvolution schema, built once when the table is.
    input_schema = spec_schema::with_evolution_property(
        "evolution",
        "A SpecEvolution: targeted upserts and removals by section, or wholesale replacements.",
        json!({ "id": { "type": "string", "description": "The model's id, as create_model returned it." } })
    ),
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
        Ok(Outcome::Changed(m.compiled.spec.version.clone(), None))
    })
    .await?;
    cx.resource_updated(&super::state_uri(&args.id));
    cx.tell(&args.id);
    Ok(Evolved { id: args.id, version })
}
