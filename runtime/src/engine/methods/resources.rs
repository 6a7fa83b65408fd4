//! `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe` and
//! `resources/unsubscribe` (the handshake era's subscriptions), and
//! `notifications/resources/updated`.

use serde::{Deserialize, Serialize};

use super::notifications::{RESOURCES_UPDATED, ResourceUpdated};
use super::{Request, failure_to_rpc, paginate};
use crate::api::content::ResourceContents;
use crate::api::context::Cx;
use crate::api::lock;
use crate::api::resources::{Resource, ResourceRequest, ResourceTemplate};
use crate::engine::jsonrpc::{RpcError, code};
use crate::engine::params::{self, Field, Object};
use crate::engine::server::Server;
use crate::engine::session::{Reply, SessionCore};
use crate::engine::stateless::listen;
use crate::engine::wire::{self, Empty, WireResult};

/// The params of `resources/read`, `resources/subscribe` and `resources/unsubscribe`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ResourceParams {
    uri: Field<String>,
    #[serde(rename = "_meta")]
    meta: Field<Object<params::RequestMeta>>,
}

impl ResourceParams {
    fn uri(&mut self) -> Result<String, RpcError> {
        match std::mem::take(&mut self.uri) {
            Field::Given(uri) => Ok(uri),
            _ => Err(RpcError::invalid_params("params.uri (a string) is required")),
        }
    }
}

/// The result of `resources/read`.
#[derive(Debug, Serialize)]
struct ReadResourceResult {
    contents: Vec<ResourceContents>,
}

impl WireResult for ReadResourceResult {}

/// The data of a resource-not-found error.
#[derive(Debug, Serialize)]
struct NamedUri<'a> {
    uri: &'a str,
}

pub(crate) fn list<S: Send + Sync + 'static>(mut request: Request<'_, S>) {
    let server = &request.session.server;
    let items: Vec<&Resource> = server.resources().iter().map(|r| &r.resource).collect();
    let page = paginate::page(items, "resources", request.params.take(), server.config().page_size);
    request.answer(page);
}

pub(crate) fn list_templates<S: Send + Sync + 'static>(mut request: Request<'_, S>) {
    let server = &request.session.server;
    let items: Vec<&ResourceTemplate> = server.templates().iter().map(|t| &t.template).collect();
    let page = paginate::page(items, "resourceTemplates", request.params.take(), server.config().page_size);
    request.answer(page);
}

pub(crate) fn read<S: Send + Sync + 'static>(mut request: Request<'_, S>) {
    let mut params: ResourceParams = params::read(request.params.take());
    let uri = match params.uri() {
        Ok(uri) => uri,
        Err(e) => return request.refuse(e),
    };
    let server = request.session.server.clone();
    // 2026-07-28 answers an unknown resource as invalid params (-32002 stays for the older ones).
    let not_found = if request.era.is_stateless() { code::INVALID_PARAMS } else { code::RESOURCE_NOT_FOUND };
    request.spawn(params::progress_token(params.meta), move |cx, _| async move {
        let contents = read_resource(&server, cx, &uri).await.map_err(|mut e| {
            if e.code == code::RESOURCE_NOT_FOUND {
                e.code = not_found;
            }
            e
        })?;
        Ok(Reply::Complete(ReadResourceResult { contents }))
    });
}

/// Reads a resource by URI: a fixed resource first, then the templates in order.
async fn read_resource<S: Send + Sync + 'static>(
    server: &Server<S>,
    cx: Cx<S>,
    uri: &str,
) -> Result<Vec<ResourceContents>, RpcError> {
    let (read, params) = server.find_resource(uri).ok_or_else(|| resource_not_found(uri))?;
    read(cx, ResourceRequest { uri: uri.to_owned(), params })
        .await
        .map_err(|f| failure_to_rpc(f, Some(resource_not_found(uri))))
}

/// Records a subscription or its end; a new subscription's observer, when the server has one, is
/// what the answer waits for.
pub(crate) fn subscription<S: Send + Sync + 'static>(mut request: Request<'_, S>, method: &str) {
    let mut params: ResourceParams = params::read(request.params.take());
    let uri = match params.uri() {
        Ok(uri) => uri,
        Err(e) => return request.refuse(e),
    };
    let session = request.session;
    let mut state = lock(&session.state);
    if method != "resources/subscribe" {
        state.subscriptions.remove(&uri);
        drop(state);
        return request.answer(Ok(Empty {}));
    }
    if session.server.find_resource(&uri).is_none() {
        drop(state);
        return request.refuse(resource_not_found(&uri));
    }
    state.subscriptions.insert(uri.clone());
    drop(state);
    match session.server.subscribed(&uri) {
        Some(observed) => request.spawn(params::progress_token(params.meta), move |_, _| async move {
            observed.await;
            Ok(Reply::Complete(Empty {}))
        }),
        None => request.answer(Ok(Empty {})),
    }
}

/// -32002, naming the URI.
pub(crate) fn resource_not_found(uri: &str) -> RpcError {
    RpcError::new(code::RESOURCE_NOT_FOUND, format!("Resource not found: {uri}"))
        .with_data(wire::to_value(&NamedUri { uri }))
}

impl<S: Send + Sync + 'static> SessionCore<S> {
    /// `notifications/resources/updated`: to a session subscribed to `uri`, and to the listens
    /// that watch it.
    pub(crate) fn resource_updated(&self, uri: &str) {
        let params = ResourceUpdated { uri };
        if lock(&self.state).subscriptions.contains(uri) {
            self.notify(RESOURCES_UPDATED, &params, None);
        }
        listen::notify(self, listen::watches(uri), RESOURCES_UPDATED, &params);
    }
}
