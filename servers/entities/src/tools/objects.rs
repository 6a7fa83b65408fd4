//! `object_list` and `object_get`: the records declared as one exact entity.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tooltable::{Cx, tool};

use super::entities::EntityArgs;
use super::errors::EntityError;
use super::service::{self, Service};
use crate::repository::{Record, Snapshot};

/// Where a record comes from; absent keys are false or unknown.
#[derive(Serialize, JsonSchema)]
pub struct Origin {
    /// The absolute path of the record's file; inline records have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The record is inline data of its definition.
    #[serde(skip_serializing_if = "is_false", default)]
    pub inline: bool,
    /// The record cannot be written back (inline data, or a file under an external root).
    #[serde(rename = "readOnly", skip_serializing_if = "is_false", default)]
    pub read_only: bool,
}

fn is_false(b: &bool) -> bool {
    !b
}

impl Origin {
    fn of(snapshot: &Snapshot, record: &Record) -> Origin {
        Origin {
            file: record.file.as_ref().map(|f| snapshot.roots.absolute(f).display().to_string()),
            inline: record.inline(),
            read_only: record.read_only(),
        }
    }
}

#[derive(Serialize, JsonSchema)]
pub struct ObjectSummary {
    #[serde(rename = "type")]
    pub kind: String,
    pub id: String,
    #[serde(flatten)]
    pub origin: Origin,
}

#[derive(Serialize, JsonSchema)]
pub struct ObjectList {
    pub entity: String,
    /// Sorted by identifier.
    pub objects: Vec<ObjectSummary>,
}

/// Lists summaries of the records declared as one exact entity, sorted by identifier; records
/// of descendant entities are not included.
#[tool(title = "List objects", read_only, idempotent, open_world = false, rest = "GET /entities/{entity}/objects")]
pub async fn object_list(cx: &Cx<Service>, args: EntityArgs) -> Result<ObjectList, EntityError> {
    let snapshot = service::snapshot(cx).await?;
    let records = cx.entity(&snapshot, &args.entity)?.1.records.as_ref().map_err(Clone::clone)?;
    let objects = records
        .all()
        .iter()
        .map(|r| ObjectSummary { kind: args.entity.clone(), id: r.id.clone(), origin: Origin::of(&snapshot, r) })
        .collect();
    Ok(ObjectList { entity: args.entity, objects })
}

#[derive(Deserialize, JsonSchema)]
pub struct ObjectArgs {
    /// The exact, case-sensitive entity name.
    pub entity: String,
    /// The record's identifier; a `$path` identifier in its workspace-relative form.
    pub id: String,
}

#[derive(Serialize, JsonSchema)]
pub struct Object {
    #[serde(rename = "type")]
    pub kind: String,
    pub id: String,
    /// Every field, derived read-only ones included.
    pub fields: Map<String, Value>,
    #[serde(flatten)]
    pub origin: Origin,
}

#[derive(Serialize, JsonSchema)]
pub struct ObjectGet {
    pub object: Object,
}

/// Gets one record by exact entity and identifier, with all its fields. Only that entity is
/// searched: a descendant's record cannot be fetched through its parent.
#[tool(title = "Get object", read_only, idempotent, open_world = false, rest = "GET /entities/{entity}/objects/{id}")]
pub async fn object_get(cx: &Cx<Service>, args: ObjectArgs) -> Result<ObjectGet, EntityError> {
    let snapshot = service::snapshot(cx).await?;
    let records = cx.entity(&snapshot, &args.entity)?.1.records.as_ref().map_err(Clone::clone)?;
    let record = records
        .get(&args.id)
        .ok_or_else(|| EntityError::ObjectNotFound { entity: args.entity.clone(), id: args.id.clone() })?;
    let object =
        Object { kind: args.entity, id: args.id, fields: record.fields.clone(), origin: Origin::of(&snapshot, record) };
    Ok(ObjectGet { object })
}
