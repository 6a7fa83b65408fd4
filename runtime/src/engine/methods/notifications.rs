//! The notifications the server sends, with their typed params.

use serde::Serialize;
use serde_json::Value;

use crate::api::logging::LogLevel;
use crate::api::numbers;

pub(crate) const PROGRESS: &str = "notifications/progress";
pub(crate) const MESSAGE: &str = "notifications/message";
pub(crate) const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
pub(crate) const RESOURCES_UPDATED: &str = "notifications/resources/updated";
pub(crate) const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
pub(crate) const TASKS: &str = "notifications/tasks";

/// `notifications/progress`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Progress<'a> {
    progress_token: &'a Value,
    progress: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

impl<'a> Progress<'a> {
    /// Numbers written as JavaScript writes them (`1`, not `1.0`).
    pub(crate) fn new(token: &'a Value, progress: f64, total: Option<f64>, message: Option<&'a str>) -> Self {
        Progress {
            progress_token: token,
            progress: numbers::number(progress),
            total: total.map(numbers::number),
            message,
        }
    }
}

/// `notifications/message`.
#[derive(Debug, Serialize)]
pub(crate) struct LoggingMessage<'a> {
    pub(crate) level: LogLevel,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) logger: Option<&'a str>,
    pub(crate) data: Value,
}

/// `notifications/resources/updated`.
#[derive(Debug, Serialize)]
pub(crate) struct ResourceUpdated<'a> {
    pub(crate) uri: &'a str,
}

/// `notifications/elicitation/complete`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ElicitationComplete<'a> {
    pub(crate) elicitation_id: &'a str,
}
