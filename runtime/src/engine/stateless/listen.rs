//! `subscriptions/listen` (revision 2026-07-28): a request that stays open and carries the change
//! notifications its filter asked for, each tagged with the request's id. It replaces the GET
//! stream and `resources/subscribe` of the older revisions; it ends when the client cancels it or
//! the session closes. With the tasks extension it also carries `notifications/tasks`: the
//! state of each task it named, every time that task changes.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::RequestMeta;
use crate::api::lock;
use crate::engine::jsonrpc::{self, RequestId, RpcError};
use crate::engine::methods::Request;
use crate::engine::outbox::{Destination, Outgoing};
use crate::engine::params::{self, Field, Object};
use crate::engine::session::SessionCore;
use crate::engine::tasks;

/// The most listens one session may hold open, and the most resources (and tasks) one may watch.
pub(crate) const MAX_LISTENERS: usize = 16;
pub(crate) const MAX_WATCHED_RESOURCES: usize = 1_000;
pub(crate) const MAX_WATCHED_TASKS: usize = 1_000;

/// What one open listen asked to hear of.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Filter {
    tools: bool,
    resources: BTreeSet<String>,
    tasks: BTreeSet<String>,
}

/// The open listens of a session, by request id.
pub(crate) type Listeners = BTreeMap<RequestId, Filter>;

/// The params of `subscriptions/listen`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ListenParams {
    notifications: Field<Object<Wanted>>,
}

/// The filter a listen asks for.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Wanted {
    tools_list_changed: Field<bool>,
    resource_subscriptions: Field<Vec<Value>>,
    task_ids: Field<Vec<Value>>,
}

/// `notifications/subscriptions/acknowledged`: the filter as honoured.
#[derive(Debug, Serialize)]
struct Acknowledged<'a> {
    #[serde(rename = "_meta")]
    meta: SubscriptionMeta<'a>,
    notifications: &'a Filter,
}

/// The `_meta` that tags a listen's notifications with its id.
#[derive(Debug, Serialize)]
struct SubscriptionMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/subscriptionId")]
    subscription_id: &'a RequestId,
}

/// A notification's params, tagged with the listen it is sent on.
#[derive(Debug, Serialize)]
struct Tagged<'a, T> {
    #[serde(flatten)]
    params: &'a T,
    #[serde(rename = "_meta")]
    meta: SubscriptionMeta<'a>,
}

/// The filter as the acknowledgment lists it: what was asked for and is honoured.
impl Serialize for Filter {
    fn serialize<Ser: serde::Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        if self.tools {
            map.serialize_entry("toolsListChanged", &true)?;
        }
        if !self.resources.is_empty() {
            map.serialize_entry("resourceSubscriptions", &self.resources)?;
        }
        if !self.tasks.is_empty() {
            map.serialize_entry("taskIds", &self.tasks)?;
        }
        map.end()
    }
}

impl Filter {
    /// The filter a request asks for, keeping what this server can honour: tool-list changes,
    /// updates of resources it serves, and changes of the `caller`'s tasks running here (those of
    /// another instance change where this one cannot see; another principal's are not its to
    /// watch). Its prompt and resource lists never change at run time.
    fn read<S: Send + Sync + 'static>(
        session: &SessionCore<S>,
        params: Option<Value>,
        meta: &RequestMeta,
        caller: Option<&str>,
    ) -> Result<Self, RpcError> {
        let wanted = params::read::<ListenParams>(params).notifications.given().map(|Object(w)| w).unwrap_or_default();
        let uris = strings(wanted.resource_subscriptions, "resourceSubscriptions", "URIs", MAX_WATCHED_RESOURCES)?;
        let resources: BTreeSet<String> =
            uris.into_iter().filter(|uri| session.server.find_resource(uri).is_some()).collect();
        // A listen is acknowledged at once; the observers go on on their own.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            resources.iter().filter_map(|uri| session.server.subscribed(uri)).for_each(|observed| {
                runtime.spawn(observed);
            });
        }
        let task_ids = strings(wanted.task_ids, "taskIds", "task ids", MAX_WATCHED_TASKS)?;
        if !task_ids.is_empty() && !tasks::declared(&meta.client_capabilities) {
            return Err(tasks::not_declared("notifications.taskIds"));
        }
        let running = session.server.tasks();
        let tasks = task_ids.into_iter().filter(|id| running.runs_here(id, caller)).collect();
        Ok(Filter { tools: wanted.tools_list_changed.given().unwrap_or(false), resources, tasks })
    }
}

/// The strings of the filter's array `key`, at most `max` of them.
fn strings(given: Field<Vec<Value>>, key: &str, what: &str, max: usize) -> Result<Vec<String>, RpcError> {
    let items: Vec<String> = match given {
        Field::Absent | Field::Null => Vec::new(),
        Field::Given(items) => items.into_iter().filter_map(|item| item.as_str().map(str::to_owned)).collect(),
        Field::Invalid => {
            return Err(RpcError::invalid_params(format!("notifications.{key} must be an array of {what}")));
        }
    };
    if items.len() > max {
        return Err(RpcError::invalid_params(format!("one listen watches at most {max} {what} ({key})")));
    }
    Ok(items)
}

/// Opens a listen: acknowledged at once, then left open. It gets no response until it ends.
pub(crate) fn open<S: Send + Sync + 'static>(request: Request<'_, S>, meta: &RequestMeta) {
    let Request { session, id, params, context, .. } = request;
    let caller = context.principal().map(|principal| principal.subject.as_str());
    let filter = match Filter::read(session, params, meta, caller) {
        Ok(filter) => filter,
        Err(e) => return session.refuse(id, e),
    };
    let mut listeners = lock(&session.listeners);
    if listeners.len() >= MAX_LISTENERS {
        drop(listeners);
        let e = RpcError::invalid_request(format!("a session holds at most {MAX_LISTENERS} open listens"));
        return session.refuse(id, e);
    }
    let ack = Acknowledged { meta: SubscriptionMeta { subscription_id: &id }, notifications: &filter };
    // Sent under the lock, so no notification of this listen can come before its acknowledgment.
    let json = jsonrpc::notification("notifications/subscriptions/acknowledged", Some(&ack));
    session.send(json, Destination::During(id.clone()));
    session.has_listened.store(true, std::sync::atomic::Ordering::Release);
    listeners.insert(id, filter);
}

/// Ends a listen the client cancelled: no response, and its stream is let go of.
pub(crate) fn cancel<S: Send + Sync + 'static>(session: &SessionCore<S>, id: &RequestId) -> bool {
    let removed = lock(&session.listeners).remove(id).is_some();
    if removed {
        session.emit(Outgoing::Cancelled(id.clone()));
    }
    removed
}

/// Tells each listen that asked for it: `method` with `params`, tagged with the listen's id.
pub(crate) fn notify<S: Send + Sync + 'static, T: Serialize>(
    session: &SessionCore<S>,
    wants: impl Fn(&Filter) -> bool,
    method: &str,
    params: &T,
) {
    let listeners = lock(&session.listeners);
    for (id, _) in listeners.iter().filter(|(_, f)| wants(f)) {
        let tagged = Tagged { params, meta: SubscriptionMeta { subscription_id: id } };
        session.send(jsonrpc::notification(method, Some(&tagged)), Destination::During(id.clone()));
    }
}

pub(crate) fn wants_tools(filter: &Filter) -> bool {
    filter.tools
}

pub(crate) fn watches(uri: &str) -> impl Fn(&Filter) -> bool + '_ {
    move |filter| filter.resources.contains(uri)
}

pub(crate) fn watches_task(id: &str) -> impl Fn(&Filter) -> bool + '_ {
    move |filter| filter.tasks.contains(id)
}
