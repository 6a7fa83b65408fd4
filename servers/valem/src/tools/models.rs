//! The registry tools: list, create, describe, read the spec of, and delete models.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tooltable::{Cx, operation};

use super::errors::ModelError;
use super::registry::Models;
use super::spec_schema;
use crate::engine::model::{Model, ModelInfo};

/// The ids of every model, alphabetical.
#[operation(title = "List models", read_only, idempotent, rest = "GET /models")]
pub async fn list_models(cx: &Cx<Models>) -> Result<Vec<String>, ModelError> {
    Ok(cx.lock().keys().cloned().collect())
}

#[derive(Deserialize)]
pub struct CreateModelArgs {
    pub spec: Value,
}

/// Creates a model from a full ModelSpec: validates it, seeds the document from schema
/// defaults and `defaultValues`, computes every eager derivation. When the id is taken, `-2`,
/// `-3`, ... is appended: read the returned id.
// The inputSchema embeds the whole ModelSpec schema, built once when the table is.
#[operation(
    title = "Create model",
    rest = "POST /models",
    body = "spec",
    status = 201,
    input_schema = spec_schema::with_spec_property("spec", "The full ModelSpec of the new model.", json!({}))
)]
pub async fn create_model(cx: &Cx<Models>, args: CreateModelArgs) -> Result<ModelInfo, ModelError> {
    let model = Model::create(&args.spec)?;
    let counts = model.info("");
    let id = cx.insert(model);
    Ok(ModelInfo { id, ..counts })
}

#[derive(Deserialize, JsonSchema)]
pub struct ModelId {
    /// The model's id, as `create_model` returned it.
    pub id: String,
}

/// A model's id, version and how many derivations, meta derivations, constraints and effects it has.
#[operation(title = "Get model info", read_only, idempotent, rest = "GET /models/{id}")]
pub async fn get_model_info(cx: &Cx<Models>, args: ModelId) -> Result<ModelInfo, ModelError> {
    cx.with(&args.id, |m| Ok(m.info(&args.id)))
}

/// The model's ModelSpec, exactly as it was given.
#[operation(title = "Get spec", read_only, idempotent, rest = "GET /models/{id}/spec")]
pub async fn get_spec(cx: &Cx<Models>, args: ModelId) -> Result<Value, ModelError> {
    cx.with(&args.id, |m| Ok(m.compiled.spec.raw.clone()))
}

#[derive(Serialize, JsonSchema)]
pub struct Deleted {
    pub deleted: String,
}

/// Deletes a model and its history.
#[operation(title = "Delete model", destructive, idempotent, rest = "DELETE /models/{id}")]
pub async fn delete_model(cx: &Cx<Models>, args: ModelId) -> Result<Deleted, ModelError> {
    match cx.lock().remove(&args.id) {
        Some(_) => Ok(Deleted { deleted: args.id }),
        None => Err(ModelError::NotFound(args.id)),
    }
}
