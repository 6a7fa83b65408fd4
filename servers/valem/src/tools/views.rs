//! `get_view`: a view of the model, evaluated on its merged state.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tooltable::{Cx, tool};

use super::errors::ModelError;
use super::registry::Models;
use crate::engine::jsonata::Env;
use crate::engine::view::{self, Render};

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewArgs {
    pub id: String,
    /// The view's id; the spec's `defaultView` (else its first view) when absent.
    #[serde(default)]
    pub view_id: Option<String>,
}

/// A view of the model, evaluated: `{modelId, viewId, title, layout, components}`, each component
/// with its bound `value`, `visible`/`enabled` (shown when false) and `readOnly`/`required` (shown
/// when true) from its own fields or the live meta values of its `bind`, and its text evaluated.
#[tool(title = "Get view", read_only, idempotent, rest = "GET /models/{id}/view", open_world = false)]
pub async fn get_view(cx: &Cx<Models>, args: ViewArgs) -> Result<Value, ModelError> {
    let id = args.id.clone();
    let (view, doc, meta, compiled) = Models::compute(cx, &args.id, move |m, budget| {
        let chosen = view::select(m.compiled.spec.view_definition.as_ref(), args.view_id.as_deref())
            .map_err(ModelError::Missing)?;
        Ok((chosen.clone(), m.merged(budget), m.state.meta.clone(), Arc::clone(&m.compiled)))
    })
    .await?;
    // Every expression evaluates on the pool, as the model's own do.
    Models::evaluate(cx, move |budget| {
        let env = Env::new(&compiled.spec.constants, compiled.library.as_ref(), budget)
            .map_err(|e| ModelError::Invalid(e.0))?;
        Ok(Render { env: &env, doc: &doc, meta: &meta }.view(&id, &view))
    })
    .await?
}
