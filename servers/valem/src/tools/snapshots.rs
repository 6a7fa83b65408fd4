//! `snapshot` and `restore`: a model's state copied out and put back verbatim.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooltable::{Cx, tool};

use super::errors::ModelError;
use super::models::ModelId;
use super::registry::{Models, Outcome};
use crate::engine::snapshot::Snapshot;

/// A point-in-time copy of the model's state: the written document (`baseDoc`), each derived
/// value (`derivedCache`) and each meta value (`metaCache`, keys `$.path#snake_property`). Hand
/// it back to `restore` unchanged.
#[tool(title = "Snapshot", read_only, idempotent, rest = "POST /models/{id}/snapshot", open_world = false)]
pub async fn snapshot(cx: &Cx<Models>, args: ModelId) -> Result<Snapshot, ModelError> {
    Models::read(cx, &args.id, |m| Ok(m.snapshot(&args.id))).await
}

#[derive(Deserialize, JsonSchema)]
pub struct RestoreArgs {
    pub id: String,
    /// A snapshot, as `snapshot` returned it.
    pub snapshot: Snapshot,
}

#[derive(Serialize, JsonSchema)]
pub struct Restored {
    pub restored: bool,
}

/// Rolls the model's state back to a snapshot: every written value is checked against the
/// current schema (a violation changes nothing), then the state is replaced as the snapshot
/// holds it; history and traces start empty. Nothing is recomputed and no audit record is written.
#[tool(
    title = "Restore",
    idempotent,
    rest = "POST /models/{id}/restore",
    body = "snapshot",
    open_world = false,
    destructive = false
)]
pub async fn restore(cx: &Cx<Models>, args: RestoreArgs) -> Result<Restored, ModelError> {
    super::shallow([&args.snapshot.base_doc])?;
    super::shallow(args.snapshot.derived_cache.values().chain(args.snapshot.meta_cache.values()))?;
    let copy = args.snapshot;
    Models::change(cx, &args.id, move |m, budget, admit| {
        m.restore(&copy, budget, admit)?;
        Ok(Outcome::Changed((), None))
    })
    .await?;
    cx.resource_updated(&super::state_uri(&args.id));
    cx.tell(&args.id);
    Ok(Restored { restored: true })
}
