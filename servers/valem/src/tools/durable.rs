//! The registry as a cache of a durable store. A model is loaded on first use and kept; before
//! each use its revision is compared with the store's, so that a commit of another instance is
//! seen (the copy is loaded again). Every commit is written to the store, in one transaction
//! with its audit record, before the call is acknowledged; a failed write fails the call and
//! the cached model is put back as the store holds it.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::OwnedRwLockWriteGuard;

use super::errors::ModelError;
use super::registry::{ChangeFn, Models, Outcome, Shared, not_found, too_many};
use crate::audit::{GENESIS, Verification, verify_from};
use crate::engine::budget::Budget;
use crate::engine::model::Model;
use crate::store::{ModelStore, StoreError};

impl From<StoreError> for ModelError {
    fn from(e: StoreError) -> ModelError {
        match e {
            StoreError::NotFound(id) => ModelError::NotFound(id),
            StoreError::Full(m) => ModelError::TooLarge(m),
            StoreError::Exists(id) => ModelError::Duplicate(id),
            StoreError::Corrupt(m) | StoreError::Unavailable(m) => ModelError::Store(m),
        }
    }
}

/// Runs `work` on a blocking thread: the store is never called on the I/O threads.
pub(super) async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, ModelError> {
    tokio::task::spawn_blocking(work).await.map_err(|e| ModelError::Internal(format!("the store call failed: {e}")))
}

fn rebuild(id: &str, stored: &crate::store::StoredModel) -> Result<Model, ModelError> {
    Model::from_stored(stored).map_err(|e| ModelError::Store(format!("the stored model {id:?} cannot be read: {e}")))
}

impl Models {
    /// The copy of `id` at the store's revision: the one held, or loaded now.
    pub(super) async fn cached(&self, store: &Arc<dyn ModelStore>, id: &str) -> Result<Shared, ModelError> {
        let (store, owned) = (Arc::clone(store), id.to_owned());
        let held = self.lock().models.get(id).map(|s| (Arc::clone(&s.model), s.revision));
        let revision = held.as_ref().map(|(_, revision)| *revision);
        let loaded = blocking(move || -> Result<Option<(Model, u64)>, ModelError> {
            match store.revision(&owned)? {
                None => Err(not_found(&owned)),
                Some(now) if Some(now) == revision => Ok(None),
                Some(_) => {
                    let (stored, now) = store.load(&owned)?.ok_or_else(|| not_found(&owned))?;
                    Ok(Some((rebuild(&owned, &stored)?, now)))
                }
            }
        })
        .await?;
        match loaded {
            Ok(None) => Ok(held.map(|(model, _)| model).ok_or_else(|| not_found(id))?),
            Ok(Some((model, revision))) => Ok(self.lock().cache(id, model, revision)),
            Err(e) => {
                if matches!(e, ModelError::NotFound(_)) {
                    self.lock().evict(id, None);
                }
                Err(e)
            }
        }
    }

    /// `change` of `model` (the copy `shared` of `id`) committed to `store`, on a blocking
    /// thread: the store holds the model alone meanwhile; a copy behind the store's revision is
    /// loaded again first.
    pub(super) fn change_stored<T>(
        &self,
        store: &dyn ModelStore,
        id: &str,
        shared: &Shared,
        model: &mut OwnedRwLockWriteGuard<Model>,
        budget: &Budget,
        change: impl ChangeFn<T>,
    ) -> Result<T, ModelError> {
        let held = store.begin(id).inspect_err(|e| {
            // Another instance deleted it: this copy goes too.
            if matches!(e, StoreError::NotFound(_)) {
                self.lock().evict(id, Some(shared));
            }
        })?;
        let cached = self.lock().models.get(id).filter(|s| Arc::ptr_eq(&s.model, shared)).map(|s| s.revision);
        if cached != Some(held.revision()) {
            **model = rebuild(id, &held.load()?)?;
            self.settle(id, shared, model, held.revision());
        }
        let admit = |bytes: usize| self.lock().resize(id, shared, bytes, self.limits().max_stored_bytes);
        let (value, record) = match change(model, budget, &admit)? {
            Outcome::Unchanged(value) => return Ok(value),
            Outcome::Changed(value, record) => (value, record),
        };
        match held.commit(&model.to_stored(), record) {
            Ok(revision) => {
                self.settle(id, shared, model, revision);
                Ok(value)
            }
            Err(e) => {
                // The change is rolled back; the copy goes back to what the store holds.
                let back = store.load(id).ok().flatten().and_then(|(s, r)| Some((rebuild(id, &s).ok()?, r)));
                match back {
                    Some((back, revision)) => {
                        **model = back;
                        self.settle(id, shared, model, revision);
                    }
                    None => self.lock().evict(id, Some(shared)),
                }
                Err(ModelError::Store(format!("the change was not stored, so it is not made: {e}")))
            }
        }
    }

    /// Records that the copy `shared` of `id` is now `model` at `revision`.
    fn settle(&self, id: &str, shared: &Shared, model: &Model, revision: u64) {
        let mut registry = self.lock();
        let _ = registry.resize(id, shared, model.bytes(), usize::MAX);
        if let Some(slot) = registry.models.get_mut(id).filter(|s| Arc::ptr_eq(&s.model, shared)) {
            slot.revision = revision;
        }
    }

    /// Stores a new model under its spec's id, then holds it. A server that keeps its models
    /// refuses a taken id (409), as the original server does: its ids are what other clients
    /// and instances name, so none is made up.
    pub(super) async fn insert_stored(&self, store: &Arc<dyn ModelStore>, model: Model) -> Result<String, ModelError> {
        self.room_for(model.bytes())?;
        let (store, limits) = (Arc::clone(store), self.limits().clone());
        let model = blocking(move || -> Result<Model, ModelError> {
            too_many(store.count()?, &limits)?;
            store.create(model.id(), &model.to_stored())?;
            Ok(model)
        })
        .await??;
        let id = model.id().to_owned();
        self.lock().cache(&id, model, 1);
        Ok(id)
    }
}

/// Records of a stored trail read at once.
const TRAIL_PAGE: u64 = 1_000;

/// Up to `limit` records of the stored trail of `id` that `keep` accepts, newest first, read a
/// page at a time from the newest.
pub(super) fn newest(
    store: &dyn ModelStore,
    id: &str,
    limit: usize,
    keep: impl Fn(&Value) -> bool,
) -> Result<Vec<Value>, ModelError> {
    let mut out = Vec::new();
    let mut end = store.next_sequence(id)?;
    while end > 0 && out.len() < limit {
        let start = end.saturating_sub(TRAIL_PAGE);
        let page = store.records(id, start..end)?;
        out.extend(page.into_iter().rev().filter(|r| keep(r)).take(limit - out.len()));
        end = start;
    }
    Ok(out)
}

/// `verify_audit` of the stored trail of `id`, read a page at a time from the oldest.
pub(super) fn verify(store: &dyn ModelStore, id: &str) -> Result<Verification, ModelError> {
    let end_of_trail = store.next_sequence(id)?;
    let (mut anchor, mut checked, mut start) = (GENESIS.to_owned(), 0, 0);
    while start < end_of_trail {
        let end = start.saturating_add(TRAIL_PAGE);
        let page = store.records(id, start..end)?;
        let verified = verify_from(&page, &anchor, checked);
        if !verified.valid {
            return Ok(verified);
        }
        if let Some(hash) = page.last().and_then(|r| r.get("hash")).and_then(Value::as_str) {
            anchor = hash.to_owned();
        }
        checked = verified.records_checked;
        start = end;
    }
    Ok(Verification { valid: true, records_checked: checked, first_broken_sequence: None, detail: "ok".into() })
}
