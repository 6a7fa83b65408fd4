//! The models of this process, by id. The registry is locked only to find, insert or remove an
//! entry and to account for the bytes the models hold; each model has its own lock, so work on
//! one model never waits for another, and reads of one model run side by side. Work that
//! evaluates expressions runs on the evaluation pool.
//!
//! With a durable store (`serve --data DIR`) the registry is a cache of it: see `durable.rs`.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value};
use tokio::sync::RwLock;
use tooltable::Cx;

use super::errors::ModelError;
use super::pool::Pool;
use super::reach::{reach, reach_new};
use crate::audit::{AuditStore, MemoryAuditStore, Trail, Verification};
use crate::blobs::{Blob, BlobStore};
use crate::engine::budget::Budget;
use crate::engine::model::Model;
use crate::options::Limits;
use crate::store::ModelStore;

pub struct Models {
    registry: Mutex<Registry>,
    limits: Limits,
    budget: Budget,
    pool: Pool,
    audit: Arc<dyn AuditStore>,
    blobs: BlobStore,
    /// Where the models are kept when they outlive the process; `None`: in memory only.
    pub(super) store: Option<Arc<dyn ModelStore>>,
    /// The id of every model whose state changed or that was deleted, for watchers in this
    /// process (the sandbox's pages); a watcher that falls behind learns it lagged.
    changes: tokio::sync::broadcast::Sender<String>,
}

/// Changes a watcher may fall behind by before it is told it lagged.
const CHANGES_KEPT: usize = 1_024;

pub(super) type Shared = Arc<RwLock<Model>>;

#[derive(Default)]
pub(super) struct Registry {
    pub(super) models: BTreeMap<String, Slot>,
    /// The next suffix to try per base id, so that a taken id costs no search of the suffixes.
    next_suffix: HashMap<String, u64>,
    /// The bytes of every model's document together.
    stored: usize,
}

pub(super) struct Slot {
    pub(super) model: Shared,
    bytes: usize,
    /// The store's revision of the model this copy is (0 without a store).
    pub(super) revision: u64,
}

/// What a change did: nothing to commit, or a new state to commit with its audit record.
pub enum Outcome<T> {
    Unchanged(T),
    Changed(T, Option<Map<String, Value>>),
}

/// What a change of a model runs: the model, the budget, and the check of the document's size.
pub trait ChangeFn<T>:
    FnOnce(&mut Model, &Budget, &dyn Fn(usize) -> Result<(), String>) -> Result<Outcome<T>, ModelError> + Send + 'static
{
}

impl<T, F> ChangeFn<T> for F where
    F: FnOnce(&mut Model, &Budget, &dyn Fn(usize) -> Result<(), String>) -> Result<Outcome<T>, ModelError>
        + Send
        + 'static
{
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
            store: None,
            changes: tokio::sync::broadcast::channel(CHANGES_KEPT).0,
        }
    }

    /// The registry as a cache of `store`: models, trails and blobs are kept there.
    pub fn durable(limits: Limits, store: Arc<dyn ModelStore>) -> Models {
        Models { store: Some(store), ..Models::new(limits) }
    }

    /// Tells the subscribers of the state of `id` and the watchers in this process that it
    /// changed.
    pub fn announce(server: &tooltable::Server<Models>, id: &str) {
        server.resource_updated(&super::state_uri(id));
        server.state().tell(id);
    }

    /// Tells the watchers in this process that the model `id` changed or is gone.
    pub fn tell(&self, id: &str) {
        // No watcher is no error.
        let _ = self.changes.send(id.to_owned());
    }

    /// The ids of the models that change from now on (see [`Models::announce`]).
    pub fn changes(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.changes.subscribe()
    }

    /// Where the models are kept, for the startup line.
    pub fn describe_store(&self) -> String {
        match &self.store {
            Some(store) => format!("models kept in {}", store.describe()),
            None => "models kept in memory: a restart loses them (--data DIR or --database URL keeps them)".into(),
        }
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// What one computation may spend.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The registry, locked; a panic elsewhere never leaves it unusable.
    pub(super) fn lock(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The model `id`: from the registry, or, with a store, as the store holds it now.
    async fn find(&self, id: &str) -> Result<Shared, ModelError> {
        match &self.store {
            None => self.lock().models.get(id).map(|s| Arc::clone(&s.model)).ok_or_else(|| not_found(id)),
            Some(store) => self.cached(store, id).await,
        }
    }

    /// Up to `limit` ids in alphabetical order, after `after` when given; and whether more follow.
    pub async fn ids(&self, after: Option<&str>, limit: usize) -> Result<(Vec<String>, bool), ModelError> {
        if let Some(store) = &self.store {
            let (store, after) = (Arc::clone(store), after.map(str::to_owned));
            return Ok(super::durable::blocking(move || store.ids(after.as_deref(), limit)).await??);
        }
        let registry = self.lock();
        let from = after.map_or(Bound::Unbounded, Bound::Excluded);
        let mut ids = registry.models.range::<str, _>((from, Bound::Unbounded)).map(|(id, _)| id);
        let page: Vec<String> = ids.by_ref().take(limit).cloned().collect();
        Ok((page, ids.next().is_some()))
    }

    /// [`ids`](Models::ids) of the models whose id starts with `prefix` (a sandbox namespace's):
    /// they follow one another in the order of ids, right after the prefix itself.
    pub async fn ids_under(
        &self,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<String>, bool), ModelError> {
        let start = after.filter(|a| *a > prefix).unwrap_or(prefix);
        let (page, more) = self.ids(Some(start), limit).await?;
        let under: Vec<String> = page.iter().take_while(|id| id.starts_with(prefix)).cloned().collect();
        let more = more && under.len() == page.len();
        Ok((under, more))
    }

    /// Runs `read` on the model `id` here, for reads that evaluate nothing.
    pub async fn read<T>(
        cx: &Cx<Models>,
        id: &str,
        read: impl FnOnce(&Model) -> Result<T, ModelError>,
    ) -> Result<T, ModelError> {
        reach(cx, id)?;
        let model = cx.find(id).await?;
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
        reach(cx, id)?;
        let model = cx.find(id).await?.read_owned().await;
        if !model.has_lazy() {
            return read(&model, &cx.budget);
        }
        cx.pool.run(cx, &cx.budget, move |budget| read(&model, budget)).await?
    }

    /// Runs `change` on the model `id` on the evaluation pool, alone on that model; the size
    /// of the document it leaves is held to the server's total before it is committed. A
    /// change with an audit record seals it onto the model's trail; with a store, the new
    /// state and the record are written in one transaction before this returns.
    pub async fn change<T: Send + 'static>(
        cx: &Cx<Models>,
        id: &str,
        change: impl ChangeFn<T>,
    ) -> Result<T, ModelError> {
        reach(cx, id)?;
        let shared = cx.find(id).await?;
        let mut model = Arc::clone(&shared).write_owned().await;
        let models = cx.clone();
        let id = id.to_owned();
        cx.pool
            .run(cx, &cx.budget, move |budget| {
                if let Some(store) = &models.store {
                    return models.change_stored(store.as_ref(), &id, &shared, &mut model, budget, change);
                }
                let admit = |bytes: usize| models.lock().resize(&id, &shared, bytes, models.limits.max_stored_bytes);
                match change(&mut model, budget, &admit)? {
                    Outcome::Unchanged(value) => Ok(value),
                    Outcome::Changed(value, record) => {
                        if let Some(record) = record {
                            models
                                .audit
                                .append(&id, record)
                                .map_err(|e| ModelError::Internal(format!("the audit record was not kept: {}", e.0)))?;
                        }
                        Ok(value)
                    }
                }
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

    /// Registers a model under its spec's id, or under `id-2`, `id-3`, ... when that is taken;
    /// with a store, stored before this returns, and a taken id is refused.
    pub async fn insert(cx: &Cx<Models>, model: Model) -> Result<String, ModelError> {
        reach_new(cx, model.id())?;
        cx.insert_reached(model).await
    }

    async fn insert_reached(&self, model: Model) -> Result<String, ModelError> {
        if let Some(store) = &self.store {
            return self.insert_stored(store, model).await;
        }
        let mut registry = self.lock();
        let bytes = model.bytes();
        registry.room_for(bytes, &self.limits)?;
        let id = registry.free_id(model.id());
        registry.cache(&id, model, 0);
        Ok(id)
    }

    /// Removes the model `id` and its trail; work already running on it finishes on a model no
    /// one can reach.
    pub async fn remove(cx: &Cx<Models>, id: &str) -> Result<(), ModelError> {
        reach(cx, id)?;
        cx.remove_reached(id).await
    }

    async fn remove_reached(&self, id: &str) -> Result<(), ModelError> {
        if let Some(store) = &self.store {
            let (store, owned) = (Arc::clone(store), id.to_owned());
            if !super::durable::blocking(move || store.delete(&owned)).await?? {
                return Err(not_found(id));
            }
            self.lock().evict(id, None);
            return Ok(());
        }
        let mut registry = self.lock();
        let slot = registry.models.remove(id).ok_or_else(|| not_found(id))?;
        registry.stored -= slot.bytes;
        registry.next_suffix.remove(id);
        drop(registry);
        self.audit.remove(id).map_err(|e| ModelError::Internal(format!("the audit trail of {id:?} stays: {}", e.0)))
    }

    /// Up to `limit` records of the audit trail of the model `id` that `keep` accepts, newest
    /// first.
    pub async fn audit_newest(
        cx: &Cx<Models>,
        id: &str,
        limit: usize,
        keep: impl Fn(&Value) -> bool + Send + 'static,
    ) -> Result<Vec<Value>, ModelError> {
        Models::read(cx, id, |_| Ok(())).await?;
        if let Some(store) = &cx.store {
            let (store, id) = (Arc::clone(store), id.to_owned());
            return super::durable::blocking(move || super::durable::newest(store.as_ref(), &id, limit, keep)).await?;
        }
        Ok(cx.memory_trail(id)?.records.into_iter().rev().filter(|r| keep(r)).take(limit).collect())
    }

    /// `verify_audit` of the model `id`: its whole trail walked in order.
    pub async fn verify_audit(cx: &Cx<Models>, id: &str) -> Result<Verification, ModelError> {
        Models::read(cx, id, |_| Ok(())).await?;
        if let Some(store) = &cx.store {
            let (store, id) = (Arc::clone(store), id.to_owned());
            return super::durable::blocking(move || super::durable::verify(store.as_ref(), &id)).await?;
        }
        Ok(cx.memory_trail(id)?.verify())
    }

    fn memory_trail(&self, id: &str) -> Result<Trail, ModelError> {
        self.audit.trail(id).map_err(|e| ModelError::Internal(format!("the audit trail cannot be read: {}", e.0)))
    }

    /// The most bytes one blob may hold.
    pub fn max_blob(&self) -> usize {
        self.blobs.max_blob()
    }

    /// Keeps `bytes` under their id (see `blobs.rs`), in the store when there is one.
    pub async fn put_blob(&self, bytes: Vec<u8>, media_type: &str) -> Result<String, ModelError> {
        let Some(store) = &self.store else { return self.blobs.put(bytes, media_type) };
        self.blobs.check_size(bytes.len())?;
        let (store, media_type) = (Arc::clone(store), media_type.to_owned());
        let max_total = self.limits.max_blob_store_bytes as u64;
        super::durable::blocking(move || {
            let id = crate::blobs::blob_id(&bytes);
            store.put_blob(&id, &media_type, &bytes, max_total).map(|()| id)
        })
        .await?
        .map_err(Into::into)
    }

    pub async fn get_blob(&self, id: &str) -> Result<Blob, ModelError> {
        let Some(store) = &self.store else { return self.blobs.get(id) };
        let (store, owned) = (Arc::clone(store), id.to_owned());
        match super::durable::blocking(move || store.get_blob(&owned)).await?? {
            Some(blob) => Ok(Blob { media_type: blob.media_type, bytes: blob.bytes.into() }),
            None => Err(crate::blobs::missing(id)),
        }
    }
}

pub(super) fn not_found(id: &str) -> ModelError {
    ModelError::NotFound(id.to_owned())
}

impl Registry {
    pub(super) fn room_for(&self, bytes: usize, limits: &Limits) -> Result<(), ModelError> {
        too_many(self.models.len(), limits)?;
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

    /// Holds `model` as `id` at `revision`, in place of any copy held before.
    pub(super) fn cache(&mut self, id: &str, model: Model, revision: u64) -> Shared {
        let bytes = model.bytes();
        let model = Arc::new(RwLock::new(model));
        let slot = Slot { model: Arc::clone(&model), bytes, revision };
        if let Some(old) = self.models.insert(id.to_owned(), slot) {
            self.stored -= old.bytes;
        }
        self.stored += bytes;
        model
    }

    /// Lets go of the copy of `id` (only when it is still `model`, when given).
    pub(super) fn evict(&mut self, id: &str, model: Option<&Shared>) {
        let held = self.models.get(id).is_some_and(|s| model.is_none_or(|m| Arc::ptr_eq(&s.model, m)));
        if held && let Some(slot) = self.models.remove(id) {
            self.stored -= slot.bytes;
        }
    }

    /// Accounts for `model`, still registered as `id`, now holding `bytes`; refused when the
    /// total would pass `max`. A model removed meanwhile counts for nothing.
    pub(super) fn resize(&mut self, id: &str, model: &Shared, bytes: usize, max: usize) -> Result<(), String> {
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

/// Refuses one more model past `--max-models`.
pub(super) fn too_many(held: usize, limits: &Limits) -> Result<(), ModelError> {
    if held >= limits.max_models {
        return Err(ModelError::TooMany(format!(
            "the server holds {held} models, as many as it may (--max-models); delete one first"
        )));
    }
    Ok(())
}

fn stored_full(max: usize) -> String {
    format!("the models together would hold more than {max} bytes, as much as the server may (--max-stored-bytes)")
}
