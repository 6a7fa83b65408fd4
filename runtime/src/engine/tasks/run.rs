//! Running tasks: each one a tokio task of its own, not tied to the request or the session that
//! created it, stopped by `tasks/cancel` or when its time to live runs out. Its questions park
//! it in `input_required` until `tasks/update` brings every answer. A task is its creator's:
//! a request of another principal is told there is no such task.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::Notify;

use super::DetailedTask;
use crate::api::context::ClientRequestError;
use crate::api::lock;
use crate::api::tasks::{DEFAULT_TTL, MemoryTaskStore, POLL_INTERVAL, TaskEnd, TaskRecord, TaskStore, TaskStoreError};
use crate::engine::jsonrpc::RpcError;
use crate::engine::session::catch_panic;

/// Who hears of a task's changes: the open `subscriptions/listen` that named it.
pub(crate) trait TaskWatchers: Send + Sync + 'static {
    fn watches(&self, id: &str) -> bool;
    /// The task's state now, as `tasks/get` would answer it.
    fn changed(&self, id: &str, detailed: &DetailedTask);
}

/// The watchers, once the server that holds the tasks is built.
type Watchers = Arc<OnceLock<Box<dyn TaskWatchers>>>;

/// The tasks of a server: where they are kept, how long, and the ones running here.
pub(crate) struct Tasks {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) ttl: Duration,
    pub(crate) poll_interval: Duration,
    running: Arc<Mutex<HashMap<String, Running>>>,
    watchers: Watchers,
}

/// Tells the watchers of a task, if it has any, its state now.
async fn tell(watchers: &Watchers, store: &dyn TaskStore, id: &str, poll_interval: Duration) {
    let Some(watchers) = watchers.get().filter(|w| w.watches(id)) else { return };
    if let Ok(Some(record)) = store.get(id).await {
        watchers.changed(id, &DetailedTask::of(&record, poll_interval));
    }
}

struct Running {
    abort: tokio::task::AbortHandle,
    scope: Arc<TaskScope>,
    owner: Option<String>,
}

impl Default for Tasks {
    fn default() -> Self {
        Tasks::new(Arc::new(MemoryTaskStore::default()), DEFAULT_TTL)
    }
}

impl Tasks {
    pub(crate) fn new(store: Arc<dyn TaskStore>, ttl: Duration) -> Self {
        Tasks { store, ttl, poll_interval: POLL_INTERVAL, running: Arc::default(), watchers: Arc::default() }
    }

    /// Who hears of task changes from now on (set once, when the server is built).
    pub(crate) fn watch(&self, watchers: Box<dyn TaskWatchers>) {
        let _ = self.watchers.set(watchers);
    }

    /// Whether the task runs on this instance, where its changes are seen as they happen, and
    /// is `caller`'s (the subject of a request's principal).
    pub(crate) fn runs_here(&self, id: &str, caller: Option<&str>) -> bool {
        lock(&self.running).get(id).is_some_and(|running| running.owner.as_deref() == caller)
    }

    /// Creates a task of `owner` (in the store before this returns, so a `tasks/get` that
    /// follows finds it) and runs `work` on as that task, once `bind` has given the call the
    /// task's scope.
    pub(crate) async fn start<Fut>(
        &self,
        owner: Option<String>,
        bind: impl FnOnce(Arc<TaskScope>),
        work: Fut,
    ) -> Result<TaskRecord, RpcError>
    where
        Fut: Future<Output = Result<Value, RpcError>> + Send + 'static,
    {
        let record = self.store.create(self.ttl, owner.clone()).await.map_err(store_error)?;
        let scope = Arc::new(TaskScope {
            id: record.id.clone(),
            store: Arc::clone(&self.store),
            wake: Notify::new(),
            cancelled: AtomicBool::new(false),
            next_key: AtomicUsize::new(0),
            poll_interval: self.poll_interval,
            watchers: Arc::clone(&self.watchers),
        });
        bind(Arc::clone(&scope));
        let work = catch_panic(work);
        let (store, running, id, ttl) =
            (Arc::clone(&self.store), Arc::clone(&self.running), record.id.clone(), self.ttl);
        let (watchers, poll_interval) = (Arc::clone(&self.watchers), self.poll_interval);
        // Under the lock, so the task cannot finish (and deregister) before it is registered.
        let mut registry = lock(&self.running);
        let handle = tokio::spawn(async move {
            let end = match tokio::time::timeout(ttl, work).await {
                Ok(Ok(Ok(result))) => TaskEnd::Completed(result),
                Ok(Ok(Err(e))) => TaskEnd::Failed(e),
                Ok(Err(panic)) => TaskEnd::Failed(RpcError::internal(format!("the handler panicked: {panic}"))),
                Err(_) => TaskEnd::Failed(RpcError::internal("the task ran past its time to live")),
            };
            match store.settle(&id, end).await {
                Ok(true) => tell(&watchers, store.as_ref(), &id, poll_interval).await,
                Ok(false) => {}
                Err(e) => tracing::warn!(task = %id, error = %e, "a task's end could not be recorded"),
            }
            lock(&running).remove(&id);
        });
        registry.insert(record.id.clone(), Running { abort: handle.abort_handle(), scope, owner });
        Ok(record)
    }

    /// The task, or -32602 when there is none by that id that is `caller`'s (the subject of the
    /// request's principal): another's is answered as one that does not exist.
    pub(crate) async fn get(&self, id: &str, caller: Option<&str>) -> Result<TaskRecord, RpcError> {
        let record = self.store.get(id).await.map_err(store_error)?;
        record.filter(|record| record.is_owned_by(caller)).ok_or_else(|| unknown(id))
    }

    /// Records the answers of `caller` to its task and wakes the task if it runs here.
    pub(crate) async fn update(
        &self,
        id: &str,
        caller: Option<&str>,
        answers: Map<String, Value>,
    ) -> Result<(), RpcError> {
        // The owner never changes, so the check holds for the answer that follows.
        self.get(id, caller).await?;
        if !self.store.answer(id, answers).await.map_err(store_error)? {
            return Err(unknown(id));
        }
        if let Some(running) = lock(&self.running).get(id) {
            running.scope.wake.notify_one();
        }
        tell(&self.watchers, self.store.as_ref(), id, self.poll_interval).await;
        Ok(())
    }

    /// Cancels a task of `caller` that has not ended (one that has is left as it is), dropping
    /// its future if it runs here.
    pub(crate) async fn cancel(&self, id: &str, caller: Option<&str>) -> Result<(), RpcError> {
        self.get(id, caller).await?;
        let ended = self.store.settle(id, TaskEnd::Cancelled).await.map_err(store_error)?;
        if let Some(running) = lock(&self.running).remove(id) {
            running.scope.cancelled.store(true, Ordering::Release);
            running.abort.abort();
        }
        if ended {
            tell(&self.watchers, self.store.as_ref(), id, self.poll_interval).await;
        }
        Ok(())
    }
}

/// What a running task's code knows of its task: where its questions go.
pub(crate) struct TaskScope {
    id: String,
    store: Arc<dyn TaskStore>,
    /// Signalled by `tasks/update` on this instance.
    wake: Notify,
    pub(crate) cancelled: AtomicBool,
    next_key: AtomicUsize,
    poll_interval: Duration,
    watchers: Watchers,
}

impl TaskScope {
    /// A key for a question the tool did not name, unique within the task.
    pub(crate) fn next_key(&self) -> String {
        format!("input-{}", self.next_key.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// Parks the task in `input_required` with `questions` until every one has its answer.
    pub(crate) async fn ask(&self, questions: Map<String, Value>) -> Result<Map<String, Value>, ClientRequestError> {
        let keys: Vec<String> = questions.keys().cloned().collect();
        self.store.ask(&self.id, questions).await.map_err(|_| ClientRequestError::Closed)?;
        tell(&self.watchers, self.store.as_ref(), &self.id, self.poll_interval).await;
        loop {
            let woken = self.wake.notified();
            if let Some(answers) =
                self.store.take_answers(&self.id, &keys).await.map_err(|_| ClientRequestError::Closed)?
            {
                return Ok(answers);
            }
            // Woken at once by an update here; an update another instance wrote to a shared
            // store is seen at the next poll.
            let _ = tokio::time::timeout(self.poll_interval, woken).await;
        }
    }
}

fn unknown(id: &str) -> RpcError {
    RpcError::invalid_params(format!("no task {id:?}: unknown, or expired"))
}

fn store_error(e: TaskStoreError) -> RpcError {
    match e {
        TaskStoreError::Unknown | TaskStoreError::Ended => RpcError::invalid_params(e.to_string()),
        TaskStoreError::Full { .. } | TaskStoreError::Unavailable(_) => RpcError::internal(e.to_string()),
    }
}
