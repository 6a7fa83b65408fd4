//! The registry tools: list, create, describe, read the spec of, and delete models.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tooltable::{Cx, tool};

use super::errors::ModelError;
use super::reach;
use super::registry::Models;
use super::spec_schema;
use crate::engine::model::{Model, ModelInfo};
use crate::namespace;

/// The most ids one `list_models` answer carries.
pub const LIST_PAGE: usize = 1_000;
/// The most characters of ids one answer carries, within the result-size guard.
const LIST_CHARS: usize = 40_000;

#[derive(Deserialize, JsonSchema)]
pub struct ListArgs {
    /// The `nextCursor` of the previous answer: the ids after it.
    #[serde(default)]
    pub cursor: Option<String>,
    /// The most ids to return (at most 1000, the default).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// The ids of every model, alphabetical. When more models exist than one answer carries
/// (1000 ids), the answer is `{models, nextCursor}`: pass `cursor` to read on.
// A sandbox session's call reads its namespace's ids only; a call of no session reads past
// every session's (see `reach.rs`), so a page may hold fewer ids than it read.
#[tool(title = "List models", read_only, idempotent, rest = "GET /models", open_world = false)]
pub async fn list_models(cx: &Cx<Models>, args: ListArgs) -> Result<Value, ModelError> {
    let limit = args.limit.unwrap_or(LIST_PAGE).clamp(1, LIST_PAGE);
    let (mut read, mut more) = match reach::session(cx) {
        Some(session) => cx.ids_under(&namespace::prefix(session), args.cursor.as_deref(), limit).await?,
        None => cx.ids(args.cursor.as_deref(), limit).await?,
    };
    let mut chars = 0;
    if let Some(fit) = read.iter().position(|id| {
        chars += id.len() + 8;
        chars > LIST_CHARS
    }) {
        read.truncate(fit.max(1));
        more = true;
    }
    let last = read.last().cloned();
    let ids: Vec<String> = read.into_iter().filter(|id| reach::listed(cx, id)).collect();
    Ok(match last {
        Some(last) if more => json!({ "models": ids, "nextCursor": last }),
        _ => json!(ids),
    })
}

#[derive(Deserialize)]
pub struct CreateModelArgs {
    pub spec: Value,
}

/// Creates a model from a full ModelSpec: validates it, seeds the document from schema
/// defaults and `defaultValues`, computes every eager derivation. When the id is taken, `-2`,
/// `-3`, ... is appended: read the returned id.
// The inputSchema embeds the whole ModelSpec schema, built once when the table is.
#[tool(
    title = "Create model",
    rest = "POST /models",
    body = "spec",
    status = 201,
    location = "/models/{id}",
    input_schema = create_schema(),
    open_world = false,
    destructive = false
)]
pub async fn create_model(cx: &Cx<Models>, args: CreateModelArgs) -> Result<ModelInfo, ModelError> {
    create(cx, args).await
}

/// Creates a model from a full ModelSpec: validates it, seeds the document from schema
/// defaults and `defaultValues`, computes every eager derivation. When the id is taken, `-2`,
/// `-3`, ... is appended: read the returned id. Paired with a browser: include a
/// `viewDefinition`, so that the developer sees the model as a form in the browser and edits it
/// there.
// `create_model` as browser mode lists it (`mcp --url URL --browser`): only the description
// differs.
#[tool(
    name = "create_model",
    title = "Create model",
    rest = "POST /models",
    body = "spec",
    status = 201,
    location = "/models/{id}",
    input_schema = create_schema(),
    open_world = false,
    destructive = false
)]
pub async fn create_model_paired(cx: &Cx<Models>, args: CreateModelArgs) -> Result<ModelInfo, ModelError> {
    create(cx, args).await
}

fn create_schema() -> Value {
    spec_schema::with_spec_property("spec", "The full ModelSpec of the new model.", json!({}))
}

async fn create(cx: &Cx<Models>, args: CreateModelArgs) -> Result<ModelInfo, ModelError> {
    super::shallow([&args.spec])?;
    // Refused before it is evaluated; `insert` checks the id the spec comes to have.
    if let Some(id) = args.spec.get("id").and_then(Value::as_str) {
        reach::reach_new(cx, id)?;
    }
    cx.room_for(0)?;
    let models = cx.clone();
    let model = Models::evaluate(cx, move |budget| {
        let admit = |bytes: usize| models.room_for(bytes).map_err(|e| e.message());
        Model::create(&args.spec, budget, &admit)
    })
    .await??;
    let counts = model.info("");
    let id = Models::insert(cx, model).await?;
    Ok(ModelInfo { id, ..counts })
}

#[derive(Deserialize, JsonSchema)]
pub struct ModelId {
    /// The model's id, as `create_model` returned it.
    pub id: String,
}

/// A model's id, version and how many derivations, meta derivations, constraints and effects it has.
#[tool(title = "Get model info", read_only, idempotent, rest = "GET /models/{id}", open_world = false)]
pub async fn get_model_info(cx: &Cx<Models>, args: ModelId) -> Result<ModelInfo, ModelError> {
    Models::read(cx, &args.id, |m| Ok(m.info(&args.id))).await
}

/// The model's ModelSpec, exactly as it was given.
#[tool(title = "Get spec", read_only, idempotent, rest = "GET /models/{id}/spec", open_world = false)]
pub async fn get_spec(cx: &Cx<Models>, args: ModelId) -> Result<Value, ModelError> {
    Models::read(cx, &args.id, |m| Ok(m.compiled.spec.raw.clone())).await
}

#[derive(Serialize, JsonSchema)]
pub struct Deleted {
    /// Always true: an unknown id is an error.
    pub deleted: bool,
}

/// Deletes a model, its history and its audit trail.
#[tool(title = "Delete model", destructive, idempotent, rest = "DELETE /models/{id}", open_world = false)]
pub async fn delete_model(cx: &Cx<Models>, args: ModelId) -> Result<Deleted, ModelError> {
    Models::remove(cx, &args.id).await?;
    cx.tell(&args.id);
    Ok(Deleted { deleted: true })
}
