//! `patch_model`: an RFC 6902 JSON Patch on the merged state, committed as one cycle.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tooltable::{Cx, operation};

use super::errors::ModelError;
use super::registry::Models;
use super::writing::{self, MutationResult, Source};
use crate::engine::patch;

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PatchArgs {
    pub id: String,
    /// An RFC 6902 JSON Patch: `[{"op": "add", "path": "/items/-", "value": {...}}, ...]`, ops
    /// `add remove replace move copy test`. Paths are JSON Pointer (`/items/0`, `-` appends),
    /// not `$.` addresses.
    #[schemars(schema_with = "operations")]
    pub patch: Vec<Value>,
    /// Also return every derivation and constraint trace of the cycle (what `explain` serves).
    #[serde(default)]
    pub include_traces: bool,
}

/// The shape of an RFC 6902 patch, so that a client knows what to write.
fn operations(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "op": { "enum": ["add", "remove", "replace", "move", "copy", "test"] },
                "path": { "type": "string", "description": "A JSON Pointer: /items/0, /items/- appends" },
                "from": { "type": "string", "description": "move and copy: the JSON Pointer to take the value from" },
                "value": { "description": "add, replace and test: the value" },
            },
            "required": ["op", "path"],
        },
    })
}

/// Applies a JSON Patch to the merged state (insert, remove, move and reorder array elements;
/// a failing `test` changes nothing), then commits the difference as one reactive cycle, as
/// `mutate` does: derived and read-only fields cannot be written, every value is schema-checked.
#[operation(
    title = "Patch model",
    rest = "POST /models/{id}/mutations/patch",
    body = "patch",
    open_world = false,
    destructive = false
)]
pub async fn patch_model(cx: &Cx<Models>, args: PatchArgs) -> Result<MutationResult, ModelError> {
    super::shallow(&args.patch)?;
    let operations = patch::parse(&args.patch).map_err(|e| ModelError::InvalidPatch(e.0))?;
    let plan = move |m: &crate::engine::model::Model, budget: &_| {
        patch::writes(&m.compiled, &m.merged(budget), &operations).map_err(|e| ModelError::InvalidPatch(e.0))
    };
    writing::write(cx, &args.id, Source::PATCH, args.include_traces, plan).await
}
