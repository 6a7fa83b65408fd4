//! The server's state: the repository and the entity allow-list every tool honours.

use std::collections::BTreeSet;
use std::sync::Arc;

use tooltable::Cx;
use tooltable::context::LogLevel;

use super::errors::EntityError;
use crate::repository::{Entity, Repository, Snapshot};

/// The repository for one call. The diagnostics of a read made for it (files skipped, or
/// served in an earlier version) go to the client's log as warnings, besides the server's.
pub async fn snapshot(cx: &Cx<Service>) -> Result<Arc<Snapshot>, EntityError> {
    let current = cx.repository.snapshot().await?;
    let diagnostics = &current.snapshot.diagnostics;
    if current.fresh {
        let shown = cx.client_diagnostics;
        for diagnostic in diagnostics.iter().take(shown) {
            cx.log(LogLevel::Warning, diagnostic);
        }
        if let Some(more) = diagnostics.len().checked_sub(shown).filter(|&n| n > 0) {
            cx.log(LogLevel::Warning, format!("{more} more diagnostics are in the server's log"));
        }
    }
    Ok(current.snapshot)
}

pub struct Service {
    pub repository: Repository,
    /// `None` exposes every entity.
    allow: Option<BTreeSet<String>>,
    /// The most diagnostics one call sends to the client; the server's log has them all.
    client_diagnostics: usize,
}

impl Service {
    pub fn new(repository: Repository, allow: Option<Vec<String>>, client_diagnostics: usize) -> Service {
        Service { repository, allow: allow.map(|names| names.into_iter().collect()), client_diagnostics }
    }

    /// Whether an entity is exposed. Allowing a parent does not expose its descendants.
    pub fn is_visible(&self, name: &str) -> bool {
        self.allow.as_ref().is_none_or(|allow| allow.contains(name))
    }

    /// The visible entities, sorted by name.
    pub fn visible<'a>(&self, snapshot: &'a Snapshot) -> impl Iterator<Item = (&'a String, &'a Entity)> {
        snapshot.entities.iter().filter(|(name, _)| self.is_visible(name))
    }

    /// One entity by exact name: `unknown_entity` when there is none, `entity_not_allowed` when
    /// it is hidden.
    pub fn entity<'a>(&self, snapshot: &'a Snapshot, name: &str) -> Result<(&'a String, &'a Entity), EntityError> {
        let found = snapshot.entities.get_key_value(name).ok_or_else(|| EntityError::UnknownEntity(name.to_owned()))?;
        if !self.is_visible(name) {
            return Err(EntityError::NotAllowed(name.to_owned()));
        }
        Ok(found)
    }
}
