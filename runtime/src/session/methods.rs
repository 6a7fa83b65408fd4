//! The requests a session serves, by method name.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use super::{Reply, RequestMeta, SessionCore, lifecycle, listen, lock, paginate, shape, stateless};
use crate::context::Cx;
use crate::jsonrpc::{RequestId, RpcError, code};
use crate::logging::LogLevel;
use crate::operation::TaskSupport;
use crate::outcome::ErrorKind;
use crate::prompts::{CompletionRequest, PromptArgs};
use crate::server::Server;
use crate::table::Entry;
use crate::tasks;

/// The most completion values one answer carries (MCP's limit).
const MAX_COMPLETIONS: usize = 100;

pub(super) fn dispatch<S: Send + Sync + 'static>(
    session: &Arc<SessionCore<S>>,
    id: RequestId,
    method: &str,
    params: Option<Value>,
    stateless: Option<Arc<RequestMeta>>,
) {
    let server = &session.server;
    let inner = &server.0;
    let has_resources = !inner.resources.is_empty() || !inner.templates.is_empty();
    let answer = match method {
        "initialize" => lifecycle::initialize(session, params),
        "server/discover" => Ok(stateless::discover(session)),
        "subscriptions/listen" if let Some(meta) = &stateless => return listen::open(session, id, &params, meta),
        "ping" => Ok(json!({})),
        "tools/list" => tools_list(session, &params, stateless.is_some()),
        "tools/call" => return tools_call(session, id, params, stateless),
        "tasks/get" | "tasks/update" | "tasks/cancel" if stateless.is_some() => {
            return tasks_method(session, id, method, params, stateless);
        }
        "logging/setLevel" => set_level(session, &params),
        "resources/list" if has_resources => {
            let items = inner.resources.iter().map(|r| json!(r.resource)).collect();
            paginate::page(items, "resources", &params, inner.config.page_size)
        }
        "resources/templates/list" if has_resources => {
            let items = inner.templates.iter().map(|t| json!(t.template)).collect();
            paginate::page(items, "resourceTemplates", &params, inner.config.page_size)
        }
        "resources/read" if has_resources => return resources_read(session, id, params, stateless),
        "resources/subscribe" | "resources/unsubscribe" if has_resources => {
            match subscription(session, method, &params) {
                Ok(Some(observed)) => {
                    return session.spawn(id, &params, stateless, move |_| async move {
                        observed.await;
                        Ok(Reply::Complete(json!({})))
                    });
                }
                answer => answer.map(|_| json!({})),
            }
        }
        "prompts/list" if !inner.prompts.is_empty() => {
            let items = inner.prompts.iter().map(|p| json!(p.prompt)).collect();
            paginate::page(items, "prompts", &params, inner.config.page_size)
        }
        "prompts/get" if !inner.prompts.is_empty() => return prompts_get(session, id, params, stateless),
        "completion/complete" if inner.completion.is_some() => return complete(session, id, params, stateless),
        _ => Err(RpcError::method_not_found(method)),
    };
    session.answer(id, answer, stateless.as_deref());
}

fn str_param<'a>(params: &'a Option<Value>, key: &str) -> Result<&'a str, RpcError> {
    params
        .as_ref()
        .and_then(|p| p.get(key))
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params(format!("params.{key} (a string) is required")))
}

/// Whether answers carry titles, outputSchema and structuredContent: from 2025-06-18 on, and in
/// every stateless request (2026-07-28).
fn structured_output<S: Send + Sync + 'static>(session: &SessionCore<S>, stateless: bool) -> bool {
    stateless || lifecycle::has_structured_output(lock(&session.state).protocol_version)
}

fn tools_list<S: Send + Sync + 'static>(
    session: &SessionCore<S>,
    params: &Option<Value>,
    stateless: bool,
) -> Result<Value, RpcError> {
    let structured = structured_output(session, stateless);
    let items = session
        .server
        .0
        .table
        .entries()
        .iter()
        .map(|e| {
            let mut tool = e.listing.clone();
            if let Some(t) = tool.as_object_mut() {
                if !structured {
                    t.remove("title");
                    t.remove("outputSchema");
                }
                // `execution.taskSupport` is the tasks extension of 2026-07-28; a 2025 client reads
                // it as that revision's experimental tasks, which this server does not speak,
                // and would refuse to call the tool. Under a handshake every tool runs in place.
                if !stateless {
                    t.remove("execution");
                }
            }
            tool
        })
        .collect();
    paginate::page(items, "tools", params, session.server.0.config.page_size)
}

fn tools_call<S: Send + Sync + 'static>(
    session: &Arc<SessionCore<S>>,
    id: RequestId,
    mut params: Option<Value>,
    stateless: Option<Arc<RequestMeta>>,
) {
    let name = match str_param(&params, "name") {
        Ok(name) => name.to_owned(),
        Err(e) => return session.refuse(id, e),
    };
    // Taken, not cloned: the arguments can be large and are read only by the call.
    let args = params.as_mut().and_then(Value::as_object_mut).and_then(|p| p.remove("arguments"));
    let structured = structured_output(session, stateless.is_some());
    let server = session.server.clone();
    let is_stateless = stateless.is_some();
    // Whether the call runs as a task is the tool's and the request's to say, not the client's
    // `task` parameter of the extension's first version, which is ignored.
    let declared = stateless.as_ref().is_some_and(|meta| tasks::declared(&meta.client_capabilities));
    match server.tool(&name).map(|tool| tool.descriptor.task_support) {
        Ok(TaskSupport::Required) if is_stateless && !declared => {
            return session.refuse(id, tasks::not_declared(&format!("the tool `{name}`")));
        }
        Ok(TaskSupport::Optional | TaskSupport::Required) if declared => {
            return call_as_task(session, id, &params, stateless, name, args);
        }
        _ => {}
    }
    session.spawn(id, &params, stateless, move |cx| async move {
        let tool = server.tool(&name)?;
        call_tool(&server, &tool, cx, args, structured, is_stateless).await.map(Reply::Complete)
    });
}

/// A call that may become a task: at once, or (a deferred task) when its code calls
/// `Cx::start_task`. Then the request is answered with the task, and the call's future, its
/// scope bound to the task, runs on as that task.
fn call_as_task<S: Send + Sync + 'static>(
    session: &Arc<SessionCore<S>>,
    id: RequestId,
    params: &Option<Value>,
    stateless: Option<Arc<RequestMeta>>,
    name: String,
    args: Option<Value>,
) {
    let server = session.server.clone();
    session.spawn(id, params, stateless, move |cx| async move {
        let tool = server.tool(&name)?;
        let scope = Arc::clone(cx.scope().ok_or_else(|| RpcError::internal("a call with no scope"))?);
        scope.may_become_task.store(true, Ordering::Release);
        if !tool.descriptor.deferred_task {
            scope.become_task.notify_one();
        }
        let runner = server.clone();
        let mut call = Box::pin(async move { Ok(json!(call_tool(&runner, &tool, cx, args, true, true).await?)) });
        tokio::select! {
            biased;
            () = scope.become_task.notified() => {
                let bind = |task| {
                    let _ = scope.task.set(task);
                };
                let record = server.0.tasks.start(bind, call).await?;
                Ok(Reply::Task(Value::Object(record.task(server.0.tasks.poll_interval))))
            }
            result = &mut call => result.map(Reply::Complete),
        }
    });
}

/// Runs a tool and shapes its result as `tools/call` answers it.
async fn call_tool<S: Send + Sync + 'static>(
    server: &Server<S>,
    tool: &Entry<S>,
    cx: Cx<S>,
    args: Option<Value>,
    structured: bool,
    is_stateless: bool,
) -> Result<shape::ToolResult, RpcError> {
    // Kept only where it is read: a 2025 call, the hot path, clones no context.
    let probe = is_stateless.then(|| cx.clone());
    let outcome = tool.call(cx, args).await?;
    // 2026-07-28: a call that failed for want of a capability the request did not declare
    // says so as the protocol error that revision defines.
    if outcome.is_err()
        && let Some(capability) = probe.as_ref().and_then(Cx::missing_capability)
    {
        return Err(missing_capability(capability));
    }
    if let Err(failure) = &outcome
        && failure.kind == ErrorKind::ElicitationRequired
    {
        return Err(elicitation_required(&failure.body));
    }
    Ok(shape::tool_result(outcome, server.0.config.result_limit, structured, tool.output_validator.as_ref()))
}

/// `tasks/get`, `tasks/update`, `tasks/cancel`.
fn tasks_method<S: Send + Sync + 'static>(
    session: &Arc<SessionCore<S>>,
    id: RequestId,
    method: &str,
    params: Option<Value>,
    stateless: Option<Arc<RequestMeta>>,
) {
    let (server, method, meta) = (session.server.clone(), method.to_owned(), stateless.clone());
    let work_params = params.clone();
    session.spawn(id, &params, stateless, move |_| async move {
        let meta = meta.ok_or_else(|| RpcError::method_not_found(&method))?;
        tasks::wire::serve(&server.0.tasks, &method, work_params, &meta).await.map(Reply::Complete)
    });
}

/// The JSON-RPC error -32042 for an operation that needs URL-mode elicitations completed first.
fn elicitation_required(body: &Value) -> RpcError {
    let message = body.get("error").and_then(Value::as_str).unwrap_or("This request requires more information.");
    RpcError::new(code::URL_ELICITATION_REQUIRED, message)
        .with_data(json!({ "elicitations": body.get("elicitations").cloned().unwrap_or_else(|| json!([])) }))
}

fn missing_capability(capability: &str) -> RpcError {
    RpcError::new(
        code::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("this request needs the client capability `{capability}`, which it did not declare"),
    )
    .with_data(json!({ "requiredCapabilities": crate::context::capability_object(capability) }))
}

fn set_level<S: Send + Sync + 'static>(session: &SessionCore<S>, params: &Option<Value>) -> Result<Value, RpcError> {
    let level = str_param(params, "level")?;
    let level =
        LogLevel::parse(level).ok_or_else(|| RpcError::invalid_params(format!("unknown log level {level:?}")))?;
    lock(&session.state).log_level = level;
    Ok(json!({}))
}

fn resources_read<S: Send + Sync + 'static>(
    session: &Arc<SessionCore<S>>,
    id: RequestId,
    params: Option<Value>,
    stateless: Option<Arc<RequestMeta>>,
) {
    let uri = match str_param(&params, "uri") {
        Ok(uri) => uri.to_owned(),
        Err(e) => return session.refuse(id, e),
    };
    let server = session.server.clone();
    // 2026-07-28 answers an unknown resource as invalid params (-32002 stays for the older ones).
    let not_found = if stateless.is_some() { code::INVALID_PARAMS } else { code::RESOURCE_NOT_FOUND };
    session.spawn(id, &params, stateless, move |cx| async move {
        let contents = server.read_resource(cx, &uri).await.map_err(|mut e| {
            if e.code == code::RESOURCE_NOT_FOUND {
                e.code = not_found;
            }
            e
        })?;
        Ok(Reply::Complete(json!({ "contents": contents })))
    });
}

/// Records a subscription or its end; a new subscription's observer, when the server has one, is
/// what the answer waits for.
fn subscription<S: Send + Sync + 'static>(
    session: &SessionCore<S>,
    method: &str,
    params: &Option<Value>,
) -> Result<Option<crate::operation::BoxFuture<'static, ()>>, RpcError> {
    let uri = str_param(params, "uri")?;
    let mut state = lock(&session.state);
    if method == "resources/subscribe" {
        if session.server.find_resource(uri).is_none() {
            return Err(crate::server::resource_not_found(uri));
        }
        state.subscriptions.insert(uri.to_owned());
        drop(state);
        return Ok(session.server.subscribed(uri));
    }
    state.subscriptions.remove(uri);
    Ok(None)
}

fn prompts_get<S: Send + Sync + 'static>(
    session: &Arc<SessionCore<S>>,
    id: RequestId,
    params: Option<Value>,
    stateless: Option<Arc<RequestMeta>>,
) {
    let name = match str_param(&params, "name") {
        Ok(name) => name.to_owned(),
        Err(e) => return session.refuse(id, e),
    };
    let args: PromptArgs = match params.as_ref().and_then(|p| p.get("arguments")) {
        None | Some(Value::Null) => PromptArgs::new(),
        Some(v) => match serde_json::from_value(v.clone()) {
            Ok(args) => args,
            Err(_) => return session.refuse(id, RpcError::invalid_params("prompt arguments must be strings")),
        },
    };
    let server = session.server.clone();
    session.spawn(id, &params, stateless, move |cx| async move {
        let result = server.get_prompt(cx, &name, args).await?;
        Ok(Reply::Complete(json!(result)))
    });
}

fn complete<S: Send + Sync + 'static>(
    session: &Arc<SessionCore<S>>,
    id: RequestId,
    params: Option<Value>,
    stateless: Option<Arc<RequestMeta>>,
) {
    let Some(req) = params.as_ref().and_then(CompletionRequest::from_params) else {
        let e = RpcError::invalid_params("completion/complete needs ref {type, name|uri} and argument {name, value}");
        return session.refuse(id, e);
    };
    let server = session.server.clone();
    session.spawn(id, &params, stateless, move |cx| async move {
        let mut values = server.complete(cx, req).await?;
        let total = values.len();
        values.truncate(MAX_COMPLETIONS);
        Ok(Reply::Complete(
            json!({ "completion": { "values": values, "total": total, "hasMore": total > MAX_COMPLETIONS } }),
        ))
    });
}
