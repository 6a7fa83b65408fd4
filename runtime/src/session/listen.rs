//! `subscriptions/listen` (revision 2026-07-28): a request that stays open and carries the change
//! notifications its filter asked for, each tagged with the request's id. It replaces the GET
//! stream and `resources/subscribe` of the older revisions; it ends when the client cancels it or
//! the session closes. With the tasks extension it also carries `notifications/tasks`: the
//! state of each task it named, every time that task changes.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::{RequestMeta, Route, SessionCore, lock};
use crate::jsonrpc::{self, RequestId, RpcError};
use crate::tasks;

/// The most listens one session may hold open, and the most resources (and tasks) one may watch.
pub const MAX_LISTENERS: usize = 16;
pub const MAX_WATCHED_RESOURCES: usize = 1_000;
pub const MAX_WATCHED_TASKS: usize = 1_000;

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// What one open listen asked to hear of.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Filter {
    tools: bool,
    resources: BTreeSet<String>,
    tasks: BTreeSet<String>,
}

/// The open listens of a session, by request id.
pub(super) type Listeners = BTreeMap<RequestId, Filter>;

impl Filter {
    /// The filter a request asks for, keeping what this server can honour: tool-list changes,
    /// updates of resources it serves, and changes of tasks running here (those of another
    /// instance change where this one cannot see). Its prompt and resource lists never change at
    /// run time.
    fn read<S: Send + Sync + 'static>(
        session: &SessionCore<S>,
        params: &Option<Value>,
        meta: &RequestMeta,
    ) -> Result<Self, RpcError> {
        let wanted = params.as_ref().and_then(|p| p.get("notifications")).cloned().unwrap_or_else(|| json!({}));
        let flag = |key: &str| wanted.get(key).and_then(Value::as_bool).unwrap_or(false);
        let uris = strings(&wanted, "resourceSubscriptions", "URIs", MAX_WATCHED_RESOURCES)?;
        let resources: BTreeSet<String> =
            uris.into_iter().filter(|uri| session.server.find_resource(uri).is_some()).map(str::to_owned).collect();
        // A listen is acknowledged at once; the observers go on on their own.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            resources.iter().filter_map(|uri| session.server.subscribed(uri)).for_each(|observed| {
                runtime.spawn(observed);
            });
        }
        let task_ids = strings(&wanted, "taskIds", "task ids", MAX_WATCHED_TASKS)?;
        if !task_ids.is_empty() && !tasks::declared(&meta.client_capabilities) {
            return Err(tasks::not_declared("notifications.taskIds"));
        }
        let running = &session.server.0.tasks;
        let tasks = task_ids.into_iter().filter(|id| running.runs_here(id)).map(str::to_owned).collect();
        Ok(Filter { tools: flag("toolsListChanged"), resources, tasks })
    }

    /// The acknowledged filter, as the notification lists it.
    fn honoured(&self) -> Value {
        let mut notifications = Map::new();
        if self.tools {
            notifications.insert("toolsListChanged".into(), json!(true));
        }
        if !self.resources.is_empty() {
            notifications.insert("resourceSubscriptions".into(), json!(self.resources));
        }
        if !self.tasks.is_empty() {
            notifications.insert("taskIds".into(), json!(self.tasks));
        }
        Value::Object(notifications)
    }
}

/// The strings of the filter's array `key`, at most `max` of them.
fn strings<'a>(wanted: &'a Value, key: &str, what: &str, max: usize) -> Result<Vec<&'a str>, RpcError> {
    let items: Vec<&str> = match wanted.get(key) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        Some(_) => return Err(RpcError::invalid_params(format!("notifications.{key} must be an array of {what}"))),
    };
    if items.len() > max {
        return Err(RpcError::invalid_params(format!("one listen watches at most {max} {what} ({key})")));
    }
    Ok(items)
}

/// Opens a listen: acknowledged at once, then left open. It gets no response until it ends.
pub(super) fn open<S: Send + Sync + 'static>(
    session: &SessionCore<S>,
    id: RequestId,
    params: &Option<Value>,
    meta: &RequestMeta,
) {
    let filter = match Filter::read(session, params, meta) {
        Ok(filter) => filter,
        Err(e) => return session.refuse(id, e),
    };
    let mut listeners = lock(&session.listeners);
    if listeners.len() >= MAX_LISTENERS {
        drop(listeners);
        let e = RpcError::invalid_request(format!("a session holds at most {MAX_LISTENERS} open listens"));
        return session.refuse(id, e);
    }
    let ack = json!({ "_meta": { SUBSCRIPTION_ID: id }, "notifications": filter.honoured() });
    // Sent under the lock, so no notification of this listen can come before its acknowledgment.
    session
        .send(jsonrpc::notification("notifications/subscriptions/acknowledged", Some(&ack)), Route::During(id.clone()));
    listeners.insert(id, filter);
}

/// Ends a listen the client cancelled: no response, and its stream is let go of.
pub(super) fn cancel<S: Send + Sync + 'static>(session: &SessionCore<S>, id: &RequestId) -> bool {
    let removed = lock(&session.listeners).remove(id).is_some();
    if removed {
        session.send(String::new(), Route::Cancelled(id.clone()));
    }
    removed
}

/// Tells each listen that asked for it: `method` with `params`, tagged with the listen's id.
pub(super) fn notify<S: Send + Sync + 'static>(
    session: &SessionCore<S>,
    wants: impl Fn(&Filter) -> bool,
    method: &str,
    params: Value,
) {
    let listeners = lock(&session.listeners);
    for (id, _) in listeners.iter().filter(|(_, f)| wants(f)) {
        let mut params = params.clone();
        params["_meta"] = json!({ SUBSCRIPTION_ID: id });
        session.send(jsonrpc::notification(method, Some(&params)), Route::During(id.clone()));
    }
}

pub(super) fn wants_tools(filter: &Filter) -> bool {
    filter.tools
}

pub(super) fn watches(uri: &str) -> impl Fn(&Filter) -> bool + '_ {
    move |filter| filter.resources.contains(uri)
}

pub(super) fn watches_task(id: &str) -> impl Fn(&Filter) -> bool + '_ {
    move |filter| filter.tasks.contains(id)
}
