//! The tasks extension (`io.modelcontextprotocol/tasks`, revision 2026-07-28) as a server sees
//! it: a tool call the server runs in the background, whose state lives behind [`TaskStore`].
//! The call is answered at once with the task; the client polls `tasks/get`, answers the task's
//! questions with `tasks/update` and may stop it with `tasks/cancel`. A task is the principal's
//! that created it ([`TaskRecord::owner`]): to a request of another it does not exist. A task's
//! running future lives in the instance that started it (see docs/architecture.md, "Tasks").
//!
//! ```
//! use std::time::Duration;
//! use tooltable::Server;
//! use tooltable::tasks::{MemoryTaskStore, TaskStatus, TaskStore};
//!
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build()?;
//! let store = MemoryTaskStore::new(100);
//! let task = runtime.block_on(store.create(Duration::from_secs(60), Some("alice".into())))?;
//! assert_eq!(task.status, TaskStatus::Working);
//! assert!(task.is_owned_by(Some("alice")) && !task.is_owned_by(Some("bob")));
//! let server = Server::builder(()).task_store(store).task_ttl(Duration::from_secs(600)).build()?;
//! # let _ = server;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod memory;
mod record;

use std::time::Duration;

use serde_json::{Map, Value};

use crate::api::tool::BoxFuture;

pub use memory::MemoryTaskStore;
pub use record::{TaskEnd, TaskRecord, TaskStatus};

/// The extension's identifier, in capabilities.
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// The most tasks the in-memory store holds at once, finished ones included until they expire.
pub const MAX_TASKS: usize = 1_000;
/// How long a task (and its result) is kept after it is created; the server stops it then.
pub const DEFAULT_TTL: Duration = Duration::from_secs(3_600);
/// How often a client is told to poll `tasks/get`.
pub const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// Where tasks are kept. The in-memory store ([`MemoryTaskStore`]) makes tasks local to one
/// instance; a store shared by several instances (a database) lets any of them answer
/// `tasks/get` and `tasks/update`. Every method is atomic on one task; a task that has ended
/// (completed, failed, cancelled) never changes again.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot keep a server's tasks: it does not implement `tooltable::tasks::TaskStore`",
    note = "use `tooltable::tasks::MemoryTaskStore`, or implement the trait's six methods for a store of your own"
)]
pub trait TaskStore: Send + Sync + 'static {
    /// Creates a task in status `working`, kept for `ttl`, its [`owner`](TaskRecord::owner) the
    /// subject of the principal that created it (kept with it, so that every instance sharing
    /// the store holds each task to its owner); refused when the store is full.
    fn create(&self, ttl: Duration, owner: Option<String>) -> BoxFuture<'_, Result<TaskRecord, TaskStoreError>>;

    /// The task, when it exists and has not expired.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Ends a task; `false` when it was unknown or had already ended (the first end wins).
    fn settle<'a>(&'a self, id: &'a str, end: TaskEnd) -> BoxFuture<'a, Result<bool, TaskStoreError>>;

    /// Records questions the task waits on and moves it to `input_required`.
    fn ask<'a>(&'a self, id: &'a str, questions: Map<String, Value>) -> BoxFuture<'a, Result<(), TaskStoreError>>;

    /// Records the client's answers to pending questions (answers to anything else are ignored);
    /// once none is pending the task is `working` again. `false` when the task is unknown.
    fn answer<'a>(&'a self, id: &'a str, answers: Map<String, Value>) -> BoxFuture<'a, Result<bool, TaskStoreError>>;

    /// The answers to `keys` once every one has come, removed from the store; `None` before;
    /// an error once the task has ended (cancelled, say) or is gone, which ends its wait.
    fn take_answers<'a>(
        &'a self,
        id: &'a str,
        keys: &'a [String],
    ) -> BoxFuture<'a, Result<Option<Map<String, Value>>, TaskStoreError>>;
}

/// Why a task store could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskStoreError {
    /// The store holds as many tasks as it may.
    Full {
        /// How many it holds.
        limit: usize,
    },
    /// The task is not (or no longer) in the store.
    Unknown,
    /// The task has ended: it takes no more answers.
    Ended,
    /// The store could not be reached or failed (a shared store's connection, say).
    Unavailable(String),
}

impl std::fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskStoreError::Full { limit } => {
                write!(f, "the server holds its limit of {limit} tasks; retry once some have expired")
            }
            TaskStoreError::Unknown => f.write_str("no such task"),
            TaskStoreError::Ended => f.write_str("the task has ended"),
            TaskStoreError::Unavailable(why) => write!(f, "the task store is unavailable: {why}"),
        }
    }
}

impl std::error::Error for TaskStoreError {}
