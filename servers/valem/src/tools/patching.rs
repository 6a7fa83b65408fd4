//! `patch_model`: an RFC 6902 JSON Patch on the merged state, committed as one cycle.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tooltable::{Cx, tool};

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

/// A JSON Pointer as the patch reads it: empty (the whole document) or `/`-led steps in which
/// `~` is only `~0` or `~1`.
const POINTER: &str = "^(?:/(?:[^~/]|~[01])*)*$";

/// The shape of an RFC 6902 patch, so that a client knows what to write: each operation with the
/// fields its `op` needs.
fn operations(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let needs = |ops: &[&str], then: Value| serde_json::json!({ "if": { "properties": { "op": { "enum": ops } } }, "then": then });
    // `from` is read only by the operations that take it; RFC 6902 ignores it on the others.
    let from = serde_json::json!({ "required": ["from"], "properties": { "from": { "pattern": POINTER } } });
    schemars::json_schema!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "op": { "enum": ["add", "remove", "replace", "move", "copy", "test"] },
                "path": { "type": "string", "pattern": POINTER, "description": "A JSON Pointer: /items/0, /items/- appends" },
                "from": { "type": "string", "description": "move and copy: the JSON Pointer to take the value from" },
                "value": { "description": "add, replace and test: the value" },
            },
            "required": ["op", "path"],
            "allOf": [needs(&["add", "replace", "test"], serde_json::json!({ "required": ["value"] })), needs(&["move", "copy"], from)],
        },
    })
}

/// Applies a JSON Patch to the merged state (insert, remove, move and reorder array elements;
/// a failing `test` changes nothing), then commits the difference as one reactive cycle, as
/// `mutate` does: derived and read-only fields cannot be written, every value is schema-checked.
#[tool(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::patch;
    use serde_json::{Value, json};

    /// The operation schema and the patch reader agree on random operations: every `op` (and
    /// one that is none), pointers good and bad, each field present or not.
    #[test]
    fn the_operation_schema_accepts_what_the_patch_reader_reads() {
        let mut generator = schemars::SchemaGenerator::default();
        let items = operations(&mut generator).get("items").cloned().unwrap();
        let validator = jsonschema::validator_for(&items).unwrap();
        let ops = ["add", "remove", "replace", "move", "copy", "test", "merge"];
        let mut rng = fastrand::Rng::with_seed(0x6902);
        let steps = ["/a", "/0", "/-", "/~0", "/~1", "/", "/~", "/~2", "a"];
        let pointer = |rng: &mut fastrand::Rng| -> String {
            (0..rng.usize(0..4)).map(|_| steps[rng.usize(..steps.len())]).collect()
        };
        let (mut read, mut refused) = (0, 0);
        for _ in 0..5_000 {
            let mut op = serde_json::Map::new();
            if rng.u8(..10) > 0 {
                op.insert("op".into(), json!(ops[rng.usize(..ops.len())]));
            }
            for field in ["path", "from"] {
                if rng.u8(..10) > 2 {
                    op.insert(field.into(), json!(pointer(&mut rng)));
                }
            }
            if rng.u8(..10) > 2 {
                op.insert("value".into(), json!(rng.u8(..)));
            }
            let op = Value::Object(op);
            let parsed = patch::parse(std::slice::from_ref(&op)).is_ok();
            assert_eq!(validator.is_valid(&op), parsed, "{op}");
            if parsed { read += 1 } else { refused += 1 }
        }
        assert!(read > 500 && refused > 500, "both sides are exercised: {read} read, {refused} refused");
    }
}
