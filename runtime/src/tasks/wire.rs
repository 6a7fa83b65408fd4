//! `tasks/get`, `tasks/update` and `tasks/cancel`, served only to 2026-07-28 requests that
//! declare the extension (-32021 for those that do not). `tasks/result` and `tasks/list`, of
//! the extension's first version, are unknown methods.

use serde_json::{Map, Value, json};

use super::{Tasks, declared, not_declared};
use crate::jsonrpc::RpcError;
use crate::session::RequestMeta;

/// One of the extension's methods, answered from the task store.
pub(crate) async fn serve(
    tasks: &Tasks,
    method: &str,
    params: Option<Value>,
    meta: &RequestMeta,
) -> Result<Value, RpcError> {
    if !declared(&meta.client_capabilities) {
        return Err(not_declared(method));
    }
    let id = task_id(&params)?;
    match method {
        "tasks/get" => Ok(Value::Object(tasks.get(id).await?.detailed(tasks.poll_interval))),
        "tasks/update" => {
            let answers = match params.as_ref().and_then(|p| p.get("inputResponses")) {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(answers)) => answers.clone(),
                Some(_) => {
                    return Err(RpcError::invalid_params("inputResponses must be an object keyed like inputRequests"));
                }
            };
            tasks.update(id, answers).await?;
            Ok(json!({}))
        }
        _ => {
            tasks.cancel(id).await?;
            Ok(json!({}))
        }
    }
}

fn task_id(params: &Option<Value>) -> Result<&str, RpcError> {
    params
        .as_ref()
        .and_then(|p| p.get("taskId"))
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("params.taskId (a string) is required"))
}
