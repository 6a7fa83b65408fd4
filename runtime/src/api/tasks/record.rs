//! One task as the store keeps it.

use std::time::{Duration, SystemTime};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::api::rpc::RpcError;

/// Where a task is in its life; the last three are final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client to answer its questions (`tasks/update`).
    InputRequired,
    /// Ended with its result.
    Completed,
    /// Ended with a protocol error.
    Failed,
    /// Stopped by `tasks/cancel`.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has ended, for good.
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }
}

/// How a task ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskEnd {
    /// The call's result, as `tools/call` would have answered it (a tool error included).
    Completed(Value),
    /// A protocol error: the handler panicked or the server failed.
    Failed(RpcError),
    /// Stopped by `tasks/cancel`.
    Cancelled,
}

/// A task: its state, the questions it waits on, the answers not yet taken, and its end.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    /// Its id: 128 random bits, which no one can guess; the task is reached with its id by its
    /// [`owner`](TaskRecord::owner) only.
    pub id: String,
    /// Where it is in its life.
    pub status: TaskStatus,
    /// When it was created.
    pub created_at: SystemTime,
    /// When its status last changed.
    pub last_updated_at: SystemTime,
    /// How long the task is kept after it was created.
    pub ttl: Duration,
    /// Questions waiting for the client, by key: `{method, params}` each.
    pub input_requests: Map<String, Value>,
    /// Answers the client gave that the task has not taken yet.
    pub answers: Map<String, Value>,
    /// How it ended, once it has.
    pub end: Option<TaskEnd>,
    /// Who created it: the subject of the request's principal, when it named one. Only requests
    /// of that subject (or, for a task created without one, of none) reach the task; to any
    /// other it does not exist.
    pub owner: Option<String>,
}

impl TaskRecord {
    /// A new task, `working`, of no owner.
    pub fn new(id: String, ttl: Duration) -> Self {
        let now = SystemTime::now();
        TaskRecord {
            id,
            status: TaskStatus::Working,
            created_at: now,
            last_updated_at: now,
            ttl,
            input_requests: Map::new(),
            answers: Map::new(),
            end: None,
            owner: None,
        }
    }

    /// Whether a request of `subject` (its principal's, `None` for none) may reach the task.
    pub fn is_owned_by(&self, subject: Option<&str>) -> bool {
        self.owner.as_deref() == subject
    }

    /// Moves the task to `status` now.
    pub fn set_status(&mut self, status: TaskStatus) {
        self.status = status;
        self.last_updated_at = SystemTime::now();
    }
}
