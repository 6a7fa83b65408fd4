//! The models of this process, by id. The registry is locked only to find, insert or remove an
//! entry and to account for the bytes the models hold; each model has its own lock, so work on
//! one model never waits for another, and reads of one model run side by side. Work that
//! evaluates expressions runs on the evaluation pool.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::RwLock;
use tooltable::Cx;

use super::errors::ModelError;
use super::pool::Pool;
use crate::audit::{AuditStore, MemoryAuditStore};
use crate::blobs::BlobStore;
use crate::engine::budget::Budget;
use crate::engine::model::Model;
use crate::options::Limits;

pub struct Models {
    registry: Mutex<Registry>,
    limits: Limits,
    budget: Budget,
    pool: Pool,
    audit: Arc<dyn AuditStore>,
    blobs: BlobStore,
}

type Shared = Arc<RwLock<Model>>;

#[derive(Default)]
struct Registry {
    models: BTreeMap<String, Slot>,
    /// The next suffix to try per base id, so that a taken id costs no search of the suffixes.
    next_suffix: HashMap<String, u64>,
    /// The bytes of every model's document together.
    stored: usize,
}

struct Slot {
    model: Shared,
    bytes: usize,
}

impl Default for Models {
    fn default() -> Self {
        Models::new(Limits::default())
    }
}

impl Models {
    /// The registry, its audit trails kept in memory.
    pub fn new(limits: Limits) -> Models {
        let audit = Arc::new(MemoryAuditStore::new(limits.max_audit_records, limits.max_audit_bytes));
        Models::with_audit(limits, audit)
    }

    /// The registry, its audit trails kept in `audit`.
    pub fn with_audit(limits: Limits, audit: Arc<dyn AuditStore>) -> Models {
        Models {
            registry: Mutex::default(),
            budget: limits.budget(),
            pool: Pool::new(limits.threads()),
            blobs: BlobStore::new(limits.max_blob_bytes, limits.max_blob_store_bytes),
            audit,
            limits,
        }
    }

    /// Where the audit trails are kept.
    pub fn audit(&self) -> &Arc<dyn AuditStore> {
        &self.audit
    }

    pub fn blobs(&self) -> &BlobStore {
        &self.blobs
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// What one computation may spend.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The registry, locked; a panic elsewhere never leaves it unusable.
    fn lock(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn find(&self, id: &str) -> Result<Shared, ModelError> {
        self.lock().models.get(id).map(|s| Arc::clone(&s.model)).ok_or_else(|| ModelError::NotFound(id.to_owned()))
    }

    /// Up to `limit` ids in alphabetical order, after `after` when given; and whether more follow.
    pub fn ids(&self, after: Option<&str>, limit: usize) -> (Vec<String>, bool) {
        let registry = self.lock();
        let from = after.map_or(Bound::Unbounded, Bound::Excluded);
        let mut ids = registry.models.range::<str, _>((from, Bound::Unbounded)).map(|(id, _)| id);
        let page: Vec<String> = ids.by_ref().take(limit).cloned().collect();
        (page, ids.next().is_some())
    }

    /// Runs `read` on the model `id` here, for reads that evaluate nothing.
    pub async fn read<T>(&self, id: &str, read: impl FnOnce(&Model) -> Result<T, ModelError>) -> Result<T, ModelError> {
        let model = self.find(id)?;
        let model = model.read().await;
        read(&model)
    }

    /// Runs `read` of the state of the model `id`: on the evaluation pool when the model has
    /// lazy derivations to compute, else here.
    pub async fn compute<T: Send + 'static>(
        cx: &Cx<Models>,
        id: &str,
        read: impl FnOnce(&Model, &Budget) -> Result<T, ModelError> + Send + 'static,
    ) -> Result<T, ModelError> {
        let model = cx.find(id)?.read_owned().await;
        if !model.has_lazy() {
            return read(&model, &cx.budget);
        }
        cx.pool.run(cx, &cx.budget, move |budget| read(&model, budget)).await?
    }

    /// Runs `change` on the model `id` on the evaluation pool, alone on that model; the size
    /// of the document it leaves is held to the server's total before it is committed.
    pub async fn change<T: Send + 'static>(
        cx: &Cx<Models>,
        id: &str,
        change: impl FnOnce(&mut Model, &Budget, &dyn Fn(usize) -> Result<(), String>) -> Result<T, ModelError>
        + Send
        + 'static,
    ) -> Result<T, ModelError> {
        let shared = cx.find(id)?;
        let mut model = Arc::clone(&shared).write_owned().await;
        let models = cx.clone();
        let id = id.to_owned();
        cx.pool
            .run(cx, &cx.budget, move |budget| {
                let admit = |bytes: usize| models.lock().resize(&id, &shared, bytes, models.limits.max_stored_bytes);
                change(&mut model, budget, &admit)
            })
            .await?
    }

    /// Runs `work` on the evaluation pool, for computations on no registered model.
    pub async fn evaluate<T: Send + 'static>(
        cx: &Cx<Models>,
        work: impl FnOnce(&Budget) -> T + Send + 'static,
    ) -> Result<T, ModelError> {
        cx.pool.run(cx, &cx.budget, work).await
    }

    /// Refuses a new model when the registry is full or its document would not fit.
    pub fn room_for(&self, bytes: usize) -> Result<(), ModelError> {
        self.lock().room_for(bytes, &self.limits)
    }

    /// Registers a model under its spec's id, or under `id-2`, `id-3`, ... when that is taken.
    pub fn insert(&self, model: Model) -> Result<String, ModelError> {
        let mut registry = self.lock();
        let bytes = model.bytes();
        registry.room_for(bytes, &self.limits)?;
        let base = model.id().to_owned();
        let id = registry.free_id(&base);
        registry.stored += bytes;
        registry.models.insert(id.clone(), Slot { model: Arc::new(RwLock::new(model)), bytes });
        Ok(id)
    }

    /// Removes the model `id`; work already running on it finishes on a model no one can reach.
    pub fn remove(&self, id: &str) -> Result<(), ModelError> {
        let mut registry = self.lock();
        let slot = registry.models.remove(id).ok_or_else(|| ModelError::NotFound(id.to_owned()))?;
        registry.stored -= slot.bytes;
        registry.next_suffix.remove(id);
        drop(registry);
        self.audit.remove(id).map_err(|e| ModelError::Internal(format!("the audit trail of {id:?} stays: {}", e.0)))
    }
}

impl Registry {
    fn room_for(&self, bytes: usize, limits: &Limits) -> Result<(), ModelError> {
        if self.models.len() >= limits.max_models {
            return Err(ModelError::TooMany(format!(
                "the server holds {} models, as many as it may (--max-models); delete one first",
                self.models.len()
            )));
        }
        if self.stored + bytes > limits.max_stored_bytes {
            return Err(ModelError::StateTooLarge(stored_full(limits.max_stored_bytes)));
        }
        Ok(())
    }

    fn free_id(&mut self, base: &str) -> String {
        if !self.models.contains_key(base) {
            return base.to_owned();
        }
        let mut n = self.next_suffix.get(base).copied().unwrap_or(2);
        let mut id = format!("{base}-{n}");
        while self.models.contains_key(&id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        self.next_suffix.insert(base.to_owned(), n + 1);
        id
    }

    /// Accounts for `model`, still registered as `id`, now holding `bytes`; refused when the
    /// total would pass `max`. A model removed meanwhile counts for nothing.
    fn resize(&mut self, id: &str, model: &Shared, bytes: usize, max: usize) -> Result<(), String> {
        let Some(slot) = self.models.get_mut(id).filter(|s| Arc::ptr_eq(&s.model, model)) else { return Ok(()) };
        let stored = self.stored - slot.bytes + bytes;
        if stored > max {
            return Err(stored_full(max));
        }
        self.stored = stored;
        slot.bytes = bytes;
        Ok(())
    }
}

fn stored_full(max: usize) -> String {
    format!("the models together would hold more than {max} bytes, as much as the server may (--max-stored-bytes)")
}
