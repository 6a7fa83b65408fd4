//! The models of this process, by id. Shared by every session; each call locks it briefly
//! (a cycle is bounded by the evaluation limits).

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use crate::engine::model::Model;

use super::errors::ModelError;

#[derive(Default)]
pub struct Models {
    models: Mutex<BTreeMap<String, Model>>,
}

impl Models {
    /// The registry, locked; a panic elsewhere never leaves it unusable.
    pub fn lock(&self) -> MutexGuard<'_, BTreeMap<String, Model>> {
        self.models.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on the model `id`.
    pub fn with<T>(&self, id: &str, f: impl FnOnce(&mut Model) -> Result<T, ModelError>) -> Result<T, ModelError> {
        let mut models = self.lock();
        let model = models.get_mut(id).ok_or_else(|| ModelError::NotFound(id.to_owned()))?;
        f(model)
    }

    /// Registers a model under its spec's id, or under `id-2`, `id-3`, ... when that is taken.
    pub fn insert(&self, model: Model) -> String {
        let mut models = self.lock();
        let base = model.id().to_owned();
        let mut id = base.clone();
        let mut n = 2;
        while models.contains_key(&id) {
            id = format!("{base}-{n}");
            n += 1;
        }
        models.insert(id.clone(), model);
        id
    }
}
