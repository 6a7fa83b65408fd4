//! `tools/list` and `tools/call`, a call that becomes a task, and `notifications/tools/list_changed`.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Request;
use super::notifications::TOOLS_LIST_CHANGED;
use super::paginate;
use super::tool_call::CallParams;
use super::tool_result::{self, ToolResult};
use crate::api::context::Cx;
use crate::api::descriptor::TaskSupport;
use crate::api::error::ErrorKind;
use crate::api::lock;
use crate::engine::era::RequestEra;
use crate::engine::jsonrpc::{RpcError, code};
use crate::engine::params::{self, Field};
use crate::engine::server::Server;
use crate::engine::session::{CallScope, Reply, SessionCore};
use crate::engine::stateless::listen;
use crate::engine::table::{Arguments, Entry};
use crate::engine::tasks::{self, Task};
use crate::engine::wire::{self, Empty};

/// A tool as `tools/list` shows it to a request: its listing, less what the request's revision
/// does not know.
struct Listed<S> {
    entry: Arc<Entry<S>>,
    /// Titles and outputSchema, from 2025-06-18 on.
    structured: bool,
    /// `execution.taskSupport` is the tasks extension of 2026-07-28; a 2025 client reads it as
    /// that revision's experimental tasks, which this server does not speak, and would refuse to
    /// call the tool. Under a handshake every tool runs in place.
    tasks: bool,
}

impl<S> Serialize for Listed<S> {
    fn serialize<Ser: serde::Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        use serde::ser::SerializeMap;
        let Value::Object(tool) = &self.entry.listing else { return self.entry.listing.serialize(s) };
        let shown = |key: &str| match key {
            "title" | "outputSchema" => self.structured,
            "execution" => self.tasks,
            _ => true,
        };
        let mut map = s.serialize_map(None)?;
        for (key, value) in tool.iter().filter(|(key, _)| shown(key)) {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// Whether answers carry titles, outputSchema and structuredContent: from 2025-06-18 on, and in
/// every stateless request (2026-07-28).
fn structured_output<S: Send + Sync + 'static>(request: &Request<'_, S>) -> bool {
    request.era.is_stateless() || request.session.structured_output.load(Ordering::Acquire)
}

pub(crate) fn list<S: Send + Sync + 'static>(mut request: Request<'_, S>) {
    let structured = structured_output(&request);
    let tasks = request.era.is_stateless();
    let server = &request.session.server;
    let items = server.table().entries().into_iter().map(|entry| Listed { entry, structured, tasks }).collect();
    let page = paginate::page(items, "tools", request.params.take(), server.config().page_size);
    request.answer(page);
}

pub(crate) fn call<S: Send + Sync + 'static>(mut request: Request<'_, S>) {
    let params = CallParams::from_value(request.params.take());
    call_with(request, params);
}

/// `tools/call` with its params read.
pub(crate) fn call_with<S: Send + Sync + 'static>(request: Request<'_, S>, params: CallParams<'_>) {
    let Field::Given(name) = params.name else {
        return request.refuse(RpcError::invalid_params("params.name (a string) is required"));
    };
    let (progress_token, arguments) = (params::progress_token(params.meta), params.arguments);
    let structured = structured_output(&request);
    let server = request.session.server.clone();
    // Whether the call runs as a task is the tool's and the request's to say, not the client's
    // `task` parameter of the extension's first version, which is ignored.
    let declared = match &request.era {
        RequestEra::Stateless(meta) => tasks::declared(&meta.client_capabilities),
        RequestEra::Handshake => false,
    };
    let stateless = request.era.is_stateless();
    // Looked up once: the call starts in place, so it runs the tool this finds.
    let tool = server.tool_for(&name, arguments.as_ref());
    match tool.as_ref().map(|tool| tool.descriptor.task_support) {
        Ok(TaskSupport::Required) if stateless && !declared => {
            return request.refuse(tasks::not_declared(&format!("the tool `{name}`")));
        }
        Ok(TaskSupport::Optional | TaskSupport::Required) if declared => {
            return call_as_task(request, progress_token, name.into_owned(), arguments);
        }
        _ => {}
    }
    request.spawn(progress_token, move |cx, scope| {
        // Kept only where it is read: a 2025 call, the hot path, clones no scope.
        let probe = stateless.then(|| Arc::clone(scope));
        async move {
            let tool = tool?;
            call_tool(&server, &tool, cx, probe, arguments, structured).await.map(Reply::Complete)
        }
    });
}

/// A call that may become a task: at once, or (a deferred task) when its code calls
/// `Cx::start_task`. Then the request is answered with the task, and the call's future, its
/// scope bound to the task, runs on as that task.
fn call_as_task<S: Send + Sync + 'static>(
    request: Request<'_, S>,
    progress_token: Option<Value>,
    name: String,
    args: Option<Arguments>,
) {
    let server = request.session.server.clone();
    request.spawn(progress_token, move |cx, scope| {
        let scope = Arc::clone(scope);
        let owner = cx.principal().map(|principal| principal.subject.clone());
        async move {
            let tool = server.tool(&name)?;
            scope.may_become_task.store(true, Ordering::Release);
            if !tool.descriptor.deferred_task {
                scope.become_task.notify_one();
            }
            let (runner, probe) = (server.clone(), Arc::clone(&scope));
            let mut call =
                Box::pin(
                    async move { Ok(wire::to_value(&call_tool(&runner, &tool, cx, Some(probe), args, true).await?)) },
                );
            tokio::select! {
                biased;
                () = scope.become_task.notified() => {
                    let bind = |task| {
                        let _ = scope.task.set(task);
                    };
                    let running = server.tasks();
                    let record = running.start(owner, bind, call).await?;
                    Ok(Reply::Task(Task::of(&record, running.poll_interval)))
                }
                result = &mut call => result.map(Reply::Complete),
            }
        }
    });
}

/// Runs a tool (through the server's layers and its limits) and shapes its result as
/// `tools/call` answers it. `probe`, for a 2026-07-28 request, tells which capability a question
/// needed that the request did not declare.
async fn call_tool<S: Send + Sync + 'static>(
    server: &Server<S>,
    tool: &Entry<S>,
    cx: Cx<S>,
    probe: Option<Arc<CallScope<S>>>,
    args: Option<Arguments>,
    structured: bool,
) -> Result<ToolResult, RpcError> {
    let outcome = server.run_call(tool, cx, args, true)?.await.into_rendered();
    // 2026-07-28: a call that failed for want of a capability the request did not declare
    // says so as the protocol error that revision defines.
    if outcome.is_err()
        && let Some(capability) = probe.as_ref().and_then(|scope| *lock(&scope.missing_capability))
    {
        return Err(missing_capability(capability));
    }
    if let Err(failure) = &outcome
        && failure.kind == ErrorKind::ElicitationRequired
    {
        return Err(elicitation_required(&failure.body));
    }
    Ok(tool_result::tool_result(outcome, server.config().result_limit, structured, tool.output_validator.as_ref()))
}

/// What -32042 reads of an elicitation-required failure's body.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ElicitationFailure {
    error: Field<String>,
    elicitations: Field<Value>,
}

/// The data of -32042.
#[derive(Debug, Serialize)]
struct Elicitations {
    elicitations: Value,
}

/// The JSON-RPC error -32042 for a tool that needs URL-mode elicitations completed first.
fn elicitation_required(body: &Value) -> RpcError {
    let failure: ElicitationFailure = params::read_value(body);
    let message = failure.error.given().unwrap_or_else(|| "This request requires more information.".to_owned());
    let elicitations = match failure.elicitations {
        Field::Given(elicitations) => elicitations,
        Field::Null => Value::Null,
        Field::Absent | Field::Invalid => Value::Array(Vec::new()),
    };
    RpcError::new(code::URL_ELICITATION_REQUIRED, message).with_data(wire::to_value(&Elicitations { elicitations }))
}

/// The data of -32021.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequiredCapabilities {
    pub(crate) required_capabilities: Value,
}

fn missing_capability(capability: &str) -> RpcError {
    RpcError::new(
        code::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("this request needs the client capability `{capability}`, which it did not declare"),
    )
    .with_data(wire::to_value(&RequiredCapabilities { required_capabilities: capability_object(capability) }))
}

/// `{"sampling": {"tools": {}}}` for `sampling.tools`: the shape of `requiredCapabilities`.
fn capability_object(path: &str) -> Value {
    path.rsplit('.')
        .fold(Value::Object(Map::new()), |inner, key| Value::Object(Map::from_iter([(key.to_owned(), inner)])))
}

impl<S: Send + Sync + 'static> SessionCore<S> {
    /// `notifications/tools/list_changed`: to an initialized session, and to the listens that
    /// asked for it.
    pub(crate) fn tools_changed(&self) {
        if self.is_initialized() {
            self.notify(TOOLS_LIST_CHANGED, &Empty {}, None);
        }
        listen::notify(self, listen::wants_tools, TOOLS_LIST_CHANGED, &Empty {});
    }
}
