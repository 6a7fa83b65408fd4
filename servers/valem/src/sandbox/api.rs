//! What the pages read and write, for the session their cookie names: `GET /sandbox/api/models`
//! (the namespace's models), `GET /sandbox/api/models/{id}/view` (the evaluated view and the
//! constraints the newest write flagged), `POST /sandbox/api/models/{id}/mutations` and
//! `.../patch` (writes, with the page's CSRF token). A page names a model by its plain id; only its own namespace's
//! models are reachable.

use http::{HeaderMap, StatusCode};
use serde_json::{Map, Value, json};
use tooltable::Error;

use super::reply::{self, Response};
use super::{Access, Sandbox, csrf};
use crate::namespace;
use crate::tools::models::LIST_PAGE;

/// The session the request's credentials name, or the 401 to answer.
pub fn session(sandbox: &Sandbox, headers: &HeaderMap) -> Result<Access, Response> {
    sandbox.access(headers).ok_or_else(|| {
        reply::error(
            StatusCode::UNAUTHORIZED,
            "not_paired",
            "this browser holds no live sandbox session: open the link your agent gives you and approve it",
        )
    })
}

/// `GET /sandbox/api/models`: `{namespaceId, models}`, the plain ids in order.
pub async fn list(sandbox: &Sandbox, headers: &HeaderMap) -> Response {
    let access = match session(sandbox, headers) {
        Ok(access) => access,
        Err(refused) => return refused,
    };
    let prefix = namespace::prefix(&access.namespace_id);
    match sandbox.server.state().ids_under(&prefix, None, LIST_PAGE).await {
        Ok((ids, _)) => {
            let models: Vec<&str> = ids.iter().filter_map(|id| id.strip_prefix(&prefix)).collect();
            reply::json(StatusCode::OK, &json!({ "namespaceId": access.namespace_id, "models": models }))
        }
        Err(e) => failed(Error::from(e), &prefix),
    }
}

/// `GET /sandbox/api/models/{id}/view`: `{view, flaggedConstraints}`.
pub async fn view(sandbox: &Sandbox, headers: &HeaderMap, id: &str) -> Response {
    let access = match session(sandbox, headers) {
        Ok(access) => access,
        Err(refused) => return refused,
    };
    let (namespace_id, prefix) = (&access.namespace_id, namespace::prefix(&access.namespace_id));
    let id = namespace::qualified(namespace_id, id);
    let view = match sandbox.call(namespace_id, "get_view", json!({ "id": id })).await {
        Ok(view) => view,
        Err(failure) => return failed(failure, &prefix),
    };
    let flagged = flagged(sandbox, namespace_id, &id).await.unwrap_or_default();
    reply::json(StatusCode::OK, &namespace::strip(json!({ "view": view, "flaggedConstraints": flagged }), &prefix))
}

/// `POST /sandbox/api/models/{id}/mutations {"$.path": value, ...}`: `mutate`'s answer.
pub async fn mutate(sandbox: &Sandbox, headers: &HeaderMap, id: &str, body: Result<Value, Response>) -> Response {
    write(sandbox, headers, id, body, "mutate", |mutations| match mutations {
        Value::Object(_) => Some(json!({ "mutations": mutations })),
        _ => None,
    })
    .await
}

/// `POST /sandbox/api/models/{id}/patch {patch}`: `patch_model`'s answer (a section list's Add
/// and Remove).
pub async fn patch(sandbox: &Sandbox, headers: &HeaderMap, id: &str, body: Result<Value, Response>) -> Response {
    write(sandbox, headers, id, body, "patch_model", |body| body.get("patch").map(|patch| json!({ "patch": patch })))
        .await
}

/// A write from a page: the CSRF token checked, the session's model named, the tool's answer
/// (or its failure, with the status its kind maps to).
async fn write(
    sandbox: &Sandbox,
    headers: &HeaderMap,
    id: &str,
    body: Result<Value, Response>,
    tool: &str,
    arguments: impl FnOnce(Value) -> Option<Value>,
) -> Response {
    if let Err(refused) = csrf::check(headers) {
        return refused;
    }
    let access = match session(sandbox, headers) {
        Ok(access) => access,
        Err(refused) => return refused,
    };
    let Some(Value::Object(mut arguments)) = (match body {
        Ok(body) => arguments(body),
        Err(refused) => return refused,
    }) else {
        let description = format!("the body is not what {tool} takes");
        return reply::error(StatusCode::BAD_REQUEST, "invalid_request", &description);
    };
    let prefix = namespace::prefix(&access.namespace_id);
    arguments.insert("id".into(), json!(namespace::qualified(&access.namespace_id, id)));
    match sandbox.call(&access.namespace_id, tool, Value::Object(arguments)).await {
        Ok(result) => reply::json(StatusCode::OK, &namespace::strip(result, &prefix)),
        Err(failure) => failed(failure, &prefix),
    }
}

/// Deletes every model of `namespace`, whose session ended.
pub async fn delete_namespace(sandbox: &Sandbox, namespace_id: &str) {
    let prefix = namespace::prefix(namespace_id);
    loop {
        let Ok((ids, _)) = sandbox.server.state().ids_under(&prefix, None, LIST_PAGE).await else { return };
        if ids.is_empty() {
            return;
        }
        for id in ids {
            if let Err(failure) = sandbox.call(namespace_id, "delete_model", json!({ "id": id })).await {
                // It stays; nothing else deletes it, so it is said where the operator looks.
                tracing::warn!("the sandbox could not delete {id} of an ended session: {}", failure.body);
                return;
            }
        }
    }
}

/// The constraints the model's newest write flagged, with their messages and policies: from its
/// newest audit record and its spec.
async fn flagged(sandbox: &Sandbox, namespace_id: &str, id: &str) -> Option<Vec<Value>> {
    let newest = sandbox.call(namespace_id, "get_audit", json!({ "id": id, "limit": 1 })).await.ok()?;
    let ids = newest.get(0)?.get("flaggedConstraints")?.as_array()?.clone();
    if ids.is_empty() {
        return Some(Vec::new());
    }
    let spec = sandbox.call(namespace_id, "get_spec", json!({ "id": id })).await.ok()?;
    let declared: Map<String, Value> = spec
        .get("constraints")?
        .as_array()?
        .iter()
        .filter_map(|c| Some((c.get("id")?.as_str()?.to_owned(), c.clone())))
        .collect();
    Some(
        ids.iter()
            .filter_map(Value::as_str)
            .map(|constraint| {
                let declared = declared.get(constraint);
                let field = |name: &str| declared.and_then(|c| c.get(name)).cloned().unwrap_or(Value::Null);
                json!({ "constraintId": constraint, "message": field("message"), "policy": field("policy") })
            })
            .collect(),
    )
}

/// A tool failure as the page reads it: its body, with the status its kind maps to.
fn failed(failure: Error, prefix: &str) -> Response {
    let status = StatusCode::from_u16(failure.kind.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    reply::json(status, &namespace::strip(failure.body, prefix))
}
