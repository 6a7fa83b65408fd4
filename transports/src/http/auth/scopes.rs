//! Scopes per operation: a tool states the OAuth scopes a caller must have been granted
//! (`#[tool(scopes = [...])]`), and a request calling it with a principal that lacks one is
//! refused with 403 `insufficient_scope`, naming the scopes to ask for, before the call is
//! dispatched. The check is the HTTP layer's, where the status and the challenge belong: a
//! `tools/call` names its tool in its params, which are read here (the whole body is at hand),
//! and a REST route is its tool's. A request without a principal (a server that authenticates
//! nobody) is not checked.

use serde_json::Value;
use tooltable::Server;
use tooltable::transport::RequestContext;
use tooltable::transport::jsonrpc::Incoming;

use super::challenge;
use crate::http::HttpContext;
use crate::http::body::HttpResponse;

/// Every scope the server's tools need, sorted, each once: the metadata's `scopes_supported`.
pub(crate) fn supported<S: Send + Sync + 'static>(server: &Server<S>) -> Vec<String> {
    let mut scopes: Vec<String> = server.table().descriptors().into_iter().flat_map(|d| d.scopes).collect();
    scopes.sort();
    scopes.dedup();
    scopes
}

/// Refuses a call of `tool` by a caller lacking one of its scopes.
pub(crate) fn authorize_tool<S: Send + Sync + 'static>(
    cx: &HttpContext<S>,
    context: &RequestContext,
    tool: &str,
) -> Result<(), HttpResponse> {
    let Some(principal) = context.principal() else { return Ok(()) };
    let Some(entry) = cx.server.table().get(tool) else { return Ok(()) };
    let needed = &entry.descriptor.scopes;
    if needed.iter().all(|scope| principal.has_scope(scope)) {
        return Ok(());
    }
    let metadata_url = cx.oauth.as_ref().map(|oauth| oauth.metadata_url());
    Err(challenge::insufficient_scope(metadata_url, needed))
}

/// Refuses a message that calls a tool its caller lacks a scope of; any other passes.
pub(crate) fn authorize_message<S: Send + Sync + 'static>(
    cx: &HttpContext<S>,
    context: &RequestContext,
    message: &Incoming,
) -> Result<(), HttpResponse> {
    // Without a principal no scope is missing: the tool's name need not be looked for.
    if context.principal().is_none() {
        return Ok(());
    }
    match message {
        Incoming::Request { method, params: Some(params), .. } if method == "tools/call" => {
            match params.get("name").and_then(Value::as_str) {
                Some(tool) => authorize_tool(cx, context, tool),
                None => Ok(()),
            }
        }
        _ => Ok(()),
    }
}
