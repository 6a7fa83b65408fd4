//! A task as the wire shows it: the `Task` of a `CreateTaskResult`, and the `DetailedTask` of
//! `tasks/get` and `notifications/tasks`.

use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};

use super::timestamp::iso8601;
use crate::api::tasks::{TaskEnd, TaskRecord, TaskStatus};
use crate::engine::jsonrpc::RpcError;

/// The `Task` fields: what `CreateTaskResult` carries.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Task {
    task_id: String,
    status: TaskStatus,
    created_at: String,
    last_updated_at: String,
    ttl_ms: u64,
    poll_interval_ms: u64,
}

/// The task, and its questions or its end.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DetailedTask {
    #[serde(flatten)]
    task: Task,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_requests: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<RpcError>,
}

impl Task {
    pub(crate) fn of(record: &TaskRecord, poll_interval: Duration) -> Self {
        Task {
            task_id: record.id.clone(),
            status: record.status,
            created_at: iso8601(record.created_at),
            last_updated_at: iso8601(record.last_updated_at),
            ttl_ms: millis(record.ttl),
            poll_interval_ms: millis(poll_interval),
        }
    }
}

impl DetailedTask {
    pub(crate) fn of(record: &TaskRecord, poll_interval: Duration) -> Self {
        let input_requests = (record.status == TaskStatus::InputRequired).then(|| record.input_requests.clone());
        let (result, error) = match &record.end {
            Some(TaskEnd::Completed(result)) => (Some(result.clone()), None),
            Some(TaskEnd::Failed(error)) => (None, Some(error.clone())),
            Some(TaskEnd::Cancelled) | None => (None, None),
        };
        DetailedTask { task: Task::of(record, poll_interval), input_requests, result, error }
    }
}

/// Whole milliseconds, at least 1: the wire's durations are positive integers.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}
