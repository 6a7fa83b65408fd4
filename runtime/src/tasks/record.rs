//! One task as the store keeps it, and as the wire shows it.

use std::time::{Duration, SystemTime};

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::timestamp::iso8601;
use crate::jsonrpc::RpcError;

/// Where a task is in its life; the last three are final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
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
    Cancelled,
}

/// A task: its state, the questions it waits on, the answers not yet taken, and its end.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    pub id: String,
    pub status: TaskStatus,
    pub created_at: SystemTime,
    pub last_updated_at: SystemTime,
    /// How long the task is kept after it was created.
    pub ttl: Duration,
    /// Questions waiting for the client, by key: `{method, params}` each.
    pub input_requests: Map<String, Value>,
    /// Answers the client gave that the task has not taken yet.
    pub answers: Map<String, Value>,
    pub end: Option<TaskEnd>,
}

impl TaskRecord {
    /// A new task, `working`.
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
        }
    }

    /// Moves the task to `status` now.
    pub fn set_status(&mut self, status: TaskStatus) {
        self.status = status;
        self.last_updated_at = SystemTime::now();
    }

    /// The `Task` fields: what `CreateTaskResult` carries.
    pub(crate) fn task(&self, poll_interval: Duration) -> Map<String, Value> {
        let mut task = Map::new();
        task.insert("taskId".into(), json!(self.id));
        task.insert("status".into(), json!(self.status));
        task.insert("createdAt".into(), json!(iso8601(self.created_at)));
        task.insert("lastUpdatedAt".into(), json!(iso8601(self.last_updated_at)));
        task.insert("ttlMs".into(), json!(millis(self.ttl)));
        task.insert("pollIntervalMs".into(), json!(millis(poll_interval)));
        task
    }

    /// The `DetailedTask` of `tasks/get`: the task, and its questions or its end.
    pub(crate) fn detailed(&self, poll_interval: Duration) -> Map<String, Value> {
        let mut task = self.task(poll_interval);
        if self.status == TaskStatus::InputRequired {
            task.insert("inputRequests".into(), Value::Object(self.input_requests.clone()));
        }
        match &self.end {
            Some(TaskEnd::Completed(result)) => {
                task.insert("result".into(), result.clone());
            }
            Some(TaskEnd::Failed(error)) => {
                task.insert("error".into(), json!(error));
            }
            Some(TaskEnd::Cancelled) | None => {}
        }
        task
    }
}

/// Whole milliseconds, at least 1: the wire's durations are positive integers.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}
