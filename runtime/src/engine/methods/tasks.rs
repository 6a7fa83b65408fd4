//! `tasks/get`, `tasks/update` and `tasks/cancel`, served only to 2026-07-28 requests that
//! declare the extension (-32021 for those that do not), and `notifications/tasks` to the
//! listens that watch a task. `tasks/result` and `tasks/list`, of the extension's first version,
//! are unknown methods.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::Request;
use super::notifications::TASKS;
use crate::api::lock;
use crate::engine::era::RequestEra;
use crate::engine::jsonrpc::RpcError;
use crate::engine::params::{self, Field, Object};
use crate::engine::session::{Reply, SessionCore};
use crate::engine::stateless::listen;
use crate::engine::tasks::{self, DetailedTask};
use crate::engine::wire::{self, Empty};

/// The params of `tasks/get`, `tasks/update` and `tasks/cancel`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct TaskParams {
    task_id: Field<String>,
    input_responses: Field<Map<String, Value>>,
    #[serde(rename = "_meta")]
    meta: Field<Object<params::RequestMeta>>,
}

/// One of the extension's methods, answered from the task store.
pub(crate) fn serve<S: Send + Sync + 'static>(mut request: Request<'_, S>, method: &str) {
    let declared = match &request.era {
        RequestEra::Stateless(meta) => tasks::declared(&meta.client_capabilities),
        RequestEra::Handshake => false,
    };
    let mut params: TaskParams = params::read(request.params.take());
    let progress_token = params::progress_token(std::mem::take(&mut params.meta));
    let (server, method) = (request.session.server.clone(), method.to_owned());
    request.spawn(progress_token, move |cx, _| async move {
        let caller = cx.principal().map(|principal| principal.subject.as_str());
        if !declared {
            return Err(tasks::not_declared(&method));
        }
        let Field::Given(id) = params.task_id else {
            return Err(RpcError::invalid_params("params.taskId (a string) is required"));
        };
        let running = server.tasks();
        let answer = match method.as_str() {
            "tasks/get" => wire::to_value(&DetailedTask::of(&running.get(&id, caller).await?, running.poll_interval)),
            "tasks/update" => {
                let answers = match params.input_responses {
                    Field::Absent | Field::Null => Map::new(),
                    Field::Given(answers) => answers,
                    Field::Invalid => {
                        return Err(RpcError::invalid_params(
                            "inputResponses must be an object keyed like inputRequests",
                        ));
                    }
                };
                running.update(&id, caller, answers).await?;
                wire::to_value(&Empty {})
            }
            _ => {
                running.cancel(&id, caller).await?;
                wire::to_value(&Empty {})
            }
        };
        Ok(Reply::Complete(answer))
    });
}

impl<S: Send + Sync + 'static> SessionCore<S> {
    /// Whether an open listen of this session watches the task.
    pub(crate) fn watches_task(&self, id: &str) -> bool {
        lock(&self.listeners).values().any(listen::watches_task(id))
    }

    /// Tells the listens that watch the task its state now.
    pub(crate) fn task_changed(&self, id: &str, detailed: &DetailedTask) {
        listen::notify(self, listen::watches_task(id), TASKS, detailed);
    }
}
