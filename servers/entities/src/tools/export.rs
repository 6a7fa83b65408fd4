//! `repository_export`: the fields of every record of the selected entities, in one snapshot.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tooltable::{Cx, tool};

use super::errors::EntityError;
use super::service::{self, Service};

#[derive(Deserialize, JsonSchema)]
pub struct ExportArgs {
    /// Exact entity names; omitted or empty for every visible entity.
    #[serde(default)]
    pub entities: Option<Vec<String>>,
}

#[derive(Serialize, JsonSchema)]
pub struct Export {
    /// Entity name → its records' fields, sorted by identifier.
    pub entities: BTreeMap<String, Vec<Map<String, Value>>>,
}

/// Exports the record fields of the selected visible entities (every visible one when none is
/// named) as one snapshot. A blocked or unknown requested entity fails the whole call.
#[tool(title = "Export repository", read_only, idempotent, open_world = false, rest = "GET /export")]
pub async fn repository_export(cx: &Cx<Service>, args: ExportArgs) -> Result<Export, EntityError> {
    let snapshot = service::snapshot(cx).await?;
    let selected: Vec<_> = match args.entities.filter(|names| !names.is_empty()) {
        None => cx.visible(&snapshot).collect(),
        Some(names) => names.iter().map(|name| cx.entity(&snapshot, name)).collect::<Result<_, EntityError>>()?,
    };
    let mut entities = BTreeMap::new();
    for (name, entity) in selected {
        let records = entity.records.as_ref().map_err(Clone::clone)?;
        entities.insert(name.clone(), records.all().iter().map(|r| r.fields.clone()).collect());
    }
    Ok(Export { entities })
}
