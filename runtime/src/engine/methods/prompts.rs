//! `prompts/list` and `prompts/get`.

use serde::{Deserialize, Serialize};

use super::{Request, failure_to_rpc, paginate};
use crate::api::context::Cx;
use crate::api::prompts::{Prompt, PromptArgs, PromptResult};
use crate::engine::jsonrpc::RpcError;
use crate::engine::params::{self, Field, Object};
use crate::engine::server::Server;
use crate::engine::session::Reply;
use crate::engine::wire::{self, WireResult};

/// The params of `prompts/get`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct GetPromptParams {
    name: Field<String>,
    arguments: Field<PromptArgs>,
    #[serde(rename = "_meta")]
    meta: Field<Object<params::RequestMeta>>,
}

/// The data of a prompt-not-found error.
#[derive(Debug, Serialize)]
struct NamedPrompt<'a> {
    name: &'a str,
}

pub(crate) fn list<S: Send + Sync + 'static>(mut request: Request<'_, S>) {
    let server = &request.session.server;
    let items: Vec<&Prompt> = server.prompts().iter().map(|p| &p.prompt).collect();
    let page = paginate::page(items, "prompts", request.params.take(), server.config().page_size);
    request.answer(page);
}

pub(crate) fn get<S: Send + Sync + 'static>(mut request: Request<'_, S>) {
    let params: GetPromptParams = params::read(request.params.take());
    let Field::Given(name) = params.name else {
        return request.refuse(RpcError::invalid_params("params.name (a string) is required"));
    };
    let args = match params.arguments {
        Field::Absent | Field::Null => PromptArgs::new(),
        Field::Given(args) => args,
        Field::Invalid => return request.refuse(RpcError::invalid_params("prompt arguments must be strings")),
    };
    let server = request.session.server.clone();
    request.spawn(params::progress_token(params.meta), move |cx, _| async move {
        get_prompt(&server, cx, &name, args).await.map(Reply::Complete)
    });
}

async fn get_prompt<S: Send + Sync + 'static>(
    server: &Server<S>,
    cx: Cx<S>,
    name: &str,
    args: PromptArgs,
) -> Result<PromptResult, RpcError> {
    let p = server.prompts().iter().find(|p| p.prompt.name == name).ok_or_else(|| prompt_not_found(name))?;
    if let Some(missing) = p.prompt.arguments.iter().find(|a| a.required && !args.contains_key(&a.name)) {
        return Err(RpcError::invalid_params(format!("prompt {name} needs the argument {}", missing.name)));
    }
    // The prompt exists: a value its handler does not find is a refused argument, in its words.
    (p.get)(cx, args).await.map_err(|f| failure_to_rpc(f, None))
}

/// A prompt name that names nothing: invalid params, as the specification says (resources have
/// their own code, -32002).
fn prompt_not_found(name: &str) -> RpcError {
    RpcError::invalid_params(format!("Prompt not found: {name}")).with_data(wire::to_value(&NamedPrompt { name }))
}
impl WireResult for PromptResult {}
