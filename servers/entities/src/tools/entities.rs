//! `entity_list` and `entity_show`: the visible entities and one entity's normalized schema.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooltable::{Cx, tool};

use super::errors::EntityError;
use super::service::{self, Service};
use crate::repository::Schema;

#[derive(Serialize, JsonSchema)]
pub struct EntityList {
    /// Visible entity names, sorted.
    pub entities: Vec<String>,
}

/// Lists the visible entity names, sorted by name. An allow-list removes every unlisted entity.
#[tool(title = "List entities", read_only, idempotent, open_world = false, rest = "GET /entities")]
pub async fn entity_list(cx: &Cx<Service>) -> Result<EntityList, EntityError> {
    let snapshot = service::snapshot(cx).await?;
    Ok(EntityList { entities: cx.visible(&snapshot).map(|(name, _)| name.clone()).collect() })
}

#[derive(Deserialize, JsonSchema)]
pub struct EntityArgs {
    /// The exact, case-sensitive entity name.
    pub entity: String,
}

#[derive(Serialize, JsonSchema)]
pub struct EntityShow {
    pub entity: String,
    pub schema: Schema,
}

/// Shows the normalized schema and configuration of one visible entity: metadata, identifier,
/// fields, includes, inline data, source, inheritance and write settings.
#[tool(title = "Show entity", read_only, idempotent, open_world = false, rest = "GET /entities/{entity}")]
pub async fn entity_show(cx: &Cx<Service>, args: EntityArgs) -> Result<EntityShow, EntityError> {
    let snapshot = service::snapshot(cx).await?;
    let (_, entity) = cx.entity(&snapshot, &args.entity)?;
    let mut schema = Schema::clone(entity.schema.as_ref().map_err(Clone::clone)?);
    // Hidden relatives are not named: allowing an entity reveals nothing about the others.
    let visible = |names: Option<Vec<String>>| {
        let names: Vec<String> = names?.into_iter().filter(|n| cx.is_visible(n)).collect();
        (!names.is_empty()).then_some(names)
    };
    schema.ancestors = visible(schema.ancestors);
    schema.descendants = visible(schema.descendants);
    Ok(EntityShow { entity: args.entity, schema })
}
