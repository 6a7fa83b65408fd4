//! `files_list`: the backing files the visible entities' includes match now.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooltable::{Cx, tool};

use super::errors::EntityError;
use super::service::{self, Service};
use crate::repository::Entity;

#[derive(Deserialize, JsonSchema)]
pub struct FilesArgs {
    /// An exact entity name; omitted or empty for every visible entity.
    #[serde(default)]
    pub entity: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct FileEntry {
    #[serde(rename = "type")]
    pub kind: String,
    /// Workspace-relative; `../` begins a path under an external root.
    pub file: String,
}

#[derive(Serialize, JsonSchema)]
pub struct FilesList {
    /// Sorted by entity, then path. Inline records have no file.
    pub files: Vec<FileEntry>,
}

/// Lists the backing files that currently match the includes of one visible entity, or of every
/// visible entity.
#[tool(title = "List files", read_only, idempotent, open_world = false, rest = "GET /files")]
pub async fn files_list(cx: &Cx<Service>, args: FilesArgs) -> Result<FilesList, EntityError> {
    let snapshot = service::snapshot(cx).await?;
    let selected: Vec<(&String, &Entity)> = match args.entity.filter(|name| !name.is_empty()) {
        None => cx.visible(&snapshot).collect(),
        Some(name) => vec![cx.entity(&snapshot, &name)?],
    };
    let mut files = Vec::new();
    for (name, entity) in selected {
        let paths = entity.files.as_ref().map_err(Clone::clone)?;
        files.extend(paths.iter().map(|file| FileEntry { kind: name.clone(), file: file.clone() }));
    }
    Ok(FilesList { files })
}
