//! The requests a session serves, by method name, one family to a file: each reads its params
//! into a typed struct and answers with a typed result.

pub(crate) mod completion;
pub(crate) mod discovery;
pub(crate) mod logging;
pub(crate) mod notifications;
mod paginate;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod tasks;
pub(crate) mod tool_call;
pub(crate) mod tool_result;
pub(crate) mod tools;

use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::api::context::{Cx, RequestContext};
use crate::api::error::{Error, ErrorKind};
use crate::engine::era::RequestEra;
use crate::engine::handshake;
use crate::engine::jsonrpc::{RequestId, RpcError, code};
use crate::engine::params::{self, Field};
use crate::engine::session::{CallScope, Reply, SessionCore};
use crate::engine::stateless::listen;
use crate::engine::wire::{Empty, WireResult};

/// One request, as the method that serves it sees it.
pub(crate) struct Request<'a, S> {
    pub(crate) session: &'a Arc<SessionCore<S>>,
    pub(crate) id: RequestId,
    pub(crate) params: Option<Value>,
    pub(crate) era: RequestEra,
    /// What the transport knew of the message.
    pub(crate) context: &'a RequestContext,
}

impl<S: Send + Sync + 'static> Request<'_, S> {
    /// Answers at once.
    pub(crate) fn answer<T: Serialize>(self, result: Result<T, RpcError>) {
        self.session.answer(self.id, result, &self.era);
    }

    /// Refuses with a JSON-RPC error.
    pub(crate) fn refuse(self, error: RpcError) {
        self.session.refuse(self.id, error);
    }

    /// Runs `work` as a call of the session (see `SessionCore::spawn`), with the request's
    /// progress token.
    pub(crate) fn spawn<F, Fut, T>(self, progress_token: Option<Value>, work: F)
    where
        F: FnOnce(Cx<S>, &Arc<CallScope<S>>) -> Fut,
        Fut: Future<Output = Result<Reply<T>, RpcError>> + Send + 'static,
        T: WireResult + Send + 'static,
    {
        self.session.spawn(self.id, self.era, self.context, progress_token, work);
    }
}

pub(crate) fn dispatch<S: Send + Sync + 'static>(mut request: Request<'_, S>, method: &str) {
    let session = request.session;
    let server = &session.server;
    let has_resources = server.has_resources();
    let has_prompts = !server.prompts().is_empty();
    let has_completion = server.has_completion();
    match method {
        "initialize" => {
            let result = handshake::initialize(session, request.params.take());
            request.answer(result);
        }
        "server/discover" => request.answer(Ok(discovery::discover(server))),
        "subscriptions/listen" if let RequestEra::Stateless(meta) = &request.era => {
            let meta = Arc::clone(meta);
            listen::open(request, &meta);
        }
        "ping" => request.answer(Ok(Empty {})),
        "tools/list" => tools::list(request),
        "tools/call" => tools::call(request),
        "tasks/get" | "tasks/update" | "tasks/cancel" if request.era.is_stateless() => tasks::serve(request, method),
        "logging/setLevel" => logging::set_level(request),
        "resources/list" if has_resources => resources::list(request),
        "resources/templates/list" if has_resources => resources::list_templates(request),
        "resources/read" if has_resources => resources::read(request),
        "resources/subscribe" | "resources/unsubscribe" if has_resources => resources::subscription(request, method),
        "prompts/list" if has_prompts => prompts::list(request),
        "prompts/get" if has_prompts => prompts::get(request),
        "completion/complete" if has_completion => completion::complete(request),
        _ => request.refuse(RpcError::method_not_found(method)),
    }
}

/// What a failure's body says in its `error`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct FailureMessage {
    error: Field<String>,
}

/// A handler failure outside `tools/call` becomes a JSON-RPC error carrying the failure body.
/// A not-found failure is `missing`, the error for what the request named (a resource), when
/// the handler's not finding it means that; else (a prompt that exists and refuses an argument
/// value) it is invalid params in the handler's own words.
pub(crate) fn failure_to_rpc(f: Error, missing: Option<RpcError>) -> RpcError {
    let code = match (f.kind, missing) {
        (ErrorKind::NotFound, Some(missing)) => return missing.with_data(f.body),
        (ErrorKind::InvalidInput | ErrorKind::BadRequest | ErrorKind::NotFound, _) => code::INVALID_PARAMS,
        _ => code::INTERNAL_ERROR,
    };
    let message = params::read_value::<FailureMessage>(&f.body).error.given();
    RpcError::new(code, message.unwrap_or_else(|| "request failed".to_owned())).with_data(f.body)
}
