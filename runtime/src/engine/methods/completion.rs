//! `completion/complete`: values for a prompt's or a resource template's argument.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Request, failure_to_rpc};
use crate::api::prompts::CompletionRequest;
use crate::engine::jsonrpc::RpcError;
use crate::engine::params::{self, Field, Object};
use crate::engine::session::Reply;
use crate::engine::wire::WireResult;

/// The most completion values one answer carries (MCP's limit).
const MAX_COMPLETIONS: usize = 100;

/// The params of `completion/complete`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CompleteParams {
    #[serde(rename = "ref")]
    reference: Field<Object<Reference>>,
    argument: Field<Object<Argument>>,
    context: Field<Object<Context>>,
    #[serde(rename = "_meta")]
    meta: Field<Object<params::RequestMeta>>,
}

/// `ref/prompt` by name or `ref/resource` by URI.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Reference {
    #[serde(rename = "type")]
    kind: Field<String>,
    name: Field<String>,
    uri: Field<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Argument {
    name: Field<String>,
    value: Field<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Context {
    arguments: Field<Map<String, Value>>,
}

/// The result of `completion/complete`.
#[derive(Debug, Serialize)]
struct CompleteResult {
    completion: Completion,
}

impl WireResult for CompleteResult {}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Completion {
    values: Vec<String>,
    total: usize,
    has_more: bool,
}

impl CompleteParams {
    /// What the request asks, when it names a reference and an argument.
    fn request(self) -> Option<CompletionRequest> {
        let Object(reference) = self.reference.given()?;
        let Object(argument) = self.argument.given()?;
        let ref_name = match reference.name {
            Field::Absent => reference.uri.given()?,
            name => name.given()?,
        };
        let context = self.context.given().and_then(|Object(c)| c.arguments.given()).unwrap_or_default();
        Some(CompletionRequest {
            ref_type: reference.kind.given()?,
            ref_name,
            argument: argument.name.given()?,
            value: argument.value.given()?,
            context: context
                .into_iter()
                .filter_map(|(k, v)| match v {
                    Value::String(v) => Some((k, v)),
                    _ => None,
                })
                .collect::<BTreeMap<_, _>>(),
        })
    }
}

pub(crate) fn complete<S: Send + Sync + 'static>(mut request: Request<'_, S>) {
    let mut params: CompleteParams = params::read(request.params.take());
    let progress_token = params::progress_token(std::mem::take(&mut params.meta));
    let Some(asked) = params.request() else {
        let e = RpcError::invalid_params("completion/complete needs ref {type, name|uri} and argument {name, value}");
        return request.refuse(e);
    };
    let server = request.session.server.clone();
    request.spawn(progress_token, move |cx, _| async move {
        let handler = server.completion().ok_or_else(|| RpcError::method_not_found("completion/complete"))?;
        let mut values = handler(cx, asked)
            .await
            .map_err(|f| failure_to_rpc(f, Some(RpcError::invalid_params("Nothing to complete"))))?;
        let total = values.len();
        values.truncate(MAX_COMPLETIONS);
        Ok(Reply::Complete(CompleteResult {
            completion: Completion { values, total, has_more: total > MAX_COMPLETIONS },
        }))
    });
}
