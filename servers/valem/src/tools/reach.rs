//! Which models a call reaches. The models of a sandbox session (`<namespaceId>__<id>`, see
//! [`crate::namespace`]) are its own: a call that names one and comes from no session is refused
//! as unauthenticated (401 over REST), and one made for another session finds nothing there (404,
//! as for an id that does not exist). A call made for a session reaches its own models only, and
//! a listing shows each caller what it reaches. The registry checks every id it is given here.

use tooltable::Cx;

use super::errors::ModelError;
use super::registry::{Models, not_found};
use crate::namespace;

/// The namespace of the session the call is made for, if any.
pub fn session(cx: &Cx<Models>) -> Option<&str> {
    namespace::of_principal(cx.principal())
}

/// `Ok` when the call may reach the model `id`.
pub fn reach(cx: &Cx<Models>, id: &str) -> Result<(), ModelError> {
    match (namespace::of(id), session(cx)) {
        (owner, Some(caller)) if owner == Some(caller) => Ok(()),
        (_, Some(_)) => Err(not_found(id)),
        (Some(_), None) => Err(ModelError::Unauthenticated(id.to_owned())),
        (None, None) => Ok(()),
    }
}

/// `Ok` when the call may create a model named `id`: in its session's namespace, or, from no
/// session, outside every namespace.
pub fn reach_new(cx: &Cx<Models>, id: &str) -> Result<(), ModelError> {
    match (namespace::of(id), session(cx)) {
        (owner, Some(caller)) if owner != Some(caller) => Err(ModelError::Invalid(format!(
            "a model of this sandbox session is named {}<id>, not {id:?}",
            namespace::prefix(caller)
        ))),
        _ => reach(cx, id),
    }
}

/// Whether a listing shows the call the model `id`.
pub fn listed(cx: &Cx<Models>, id: &str) -> bool {
    reach(cx, id).is_ok()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use tooltable::context::Transport;
    use tooltable::tool::Output;
    use tooltable::transport::RequestContext;
    use tooltable::{Error, ErrorKind, Server};

    use super::*;

    const OWNER: &str = "s0123456789abcdef0123";
    const STRANGER: &str = "sfedcba9876543210fedc";

    /// `tool` called for the session of `namespace`, or for none.
    async fn call(server: &Server<Models>, namespace: Option<&str>, tool: &str, args: Value) -> Result<Value, Error> {
        let request = RequestContext::new(Transport::InProcess).with_principal(namespace.map(namespace::principal));
        match server.call_tool(server.cx(&request), tool, Some(args)).await.unwrap() {
            Ok(Output::Json(value)) => Ok(value),
            Ok(Output::Content(content)) => Ok(serde_json::to_value(content).unwrap()),
            Err(failure) => Err(failure),
        }
    }

    #[tokio::test]
    async fn every_tool_that_names_a_model_keeps_to_its_callers_session() {
        let server = crate::server().unwrap();
        let id = namespace::qualified(OWNER, "order");
        let spec = json!({
            "id": id,
            "schema": { "type": "object", "properties": { "qty": { "type": "integer" } } },
            "viewDefinition": { "views": [{ "id": "main", "components": [{ "id": "qty", "type": "numericField", "bind": "$.qty" }] }] },
        });
        call(&server, Some(OWNER), "create_model", json!({ "spec": spec })).await.unwrap();
        let snapshot = call(&server, Some(OWNER), "snapshot", json!({ "id": id })).await.unwrap();
        let naming = [
            ("get_model_info", json!({ "id": id })),
            ("get_spec", json!({ "id": id })),
            ("get_state", json!({ "id": id })),
            ("get_field", json!({ "id": id, "path": "$.qty" })),
            ("get_effective_schema", json!({ "id": id, "path": "$.qty" })),
            ("mutate", json!({ "id": id, "mutations": { "$.qty": 1 } })),
            ("patch_model", json!({ "id": id, "patch": [{ "op": "add", "path": "/qty", "value": 2 }] })),
            ("explain", json!({ "id": id, "path": "$.qty" })),
            ("get_history", json!({ "id": id })),
            ("get_audit", json!({ "id": id })),
            ("verify_audit", json!({ "id": id })),
            ("snapshot", json!({ "id": id })),
            ("restore", json!({ "id": id, "snapshot": snapshot })),
            ("evolve_spec", json!({ "id": id, "evolution": { "newVersion": "2.0.0" } })),
            ("get_view", json!({ "id": id })),
            ("download_blob", json!({ "blobId": format!("sha256:{}", "0".repeat(64)), "modelId": id })),
            ("create_model", json!({ "spec": { "id": namespace::qualified(OWNER, "new"), "schema": {} } })),
            ("delete_model", json!({ "id": id })),
        ];
        for (tool, args) in &naming {
            let refused = call(&server, None, tool, args.clone()).await.unwrap_err();
            assert_eq!(
                (refused.kind, refused.kind.http_status()),
                (ErrorKind::Unauthorized, 401),
                "{tool}: {refused:?}"
            );
            assert_eq!(refused.body["error"], "Session required", "{tool}");
            let hidden = call(&server, Some(STRANGER), tool, args.clone()).await.unwrap_err();
            // A new model is named in the caller's own namespace; the others are not found.
            let (kind, error) = match *tool {
                "create_model" => (ErrorKind::InvalidInput, hidden.body["error"].clone()),
                _ => (ErrorKind::NotFound, json!("Model not found")),
            };
            assert_eq!((hidden.kind, &hidden.body["error"]), (kind, &error), "{tool}: {hidden:?}");
        }
        let listed = |namespace| call(&server, namespace, "list_models", json!({}));
        assert_eq!(listed(Some(STRANGER)).await.unwrap(), json!([]));
        assert_eq!(listed(None).await.unwrap(), json!([]), "a call of no session lists no session's models");
        assert_eq!(listed(Some(OWNER)).await.unwrap(), json!([id]));
        for (tool, args) in naming {
            match (tool, call(&server, Some(OWNER), tool, args).await) {
                // Reached: the model holds no such blob.
                ("download_blob", Err(missing)) => assert_eq!(missing.kind, ErrorKind::NotFound, "{missing:?}"),
                (_, reached) => assert!(reached.is_ok(), "{tool}: {reached:?}"),
            }
        }
    }

    #[test]
    fn a_session_creates_in_its_namespace_only() {
        let server = crate::server().unwrap();
        let request = RequestContext::new(Transport::InProcess).with_principal(Some(namespace::principal(OWNER)));
        let cx = server.cx(&request);
        assert!(matches!(reach_new(&cx, "order"), Err(ModelError::Invalid(_))));
        assert!(matches!(reach_new(&cx, &namespace::qualified(STRANGER, "x")), Err(ModelError::Invalid(_))));
        assert_eq!(reach_new(&cx, &namespace::qualified(OWNER, "x")), Ok(()));
        let anyone = server.cx(&RequestContext::new(Transport::InProcess));
        assert_eq!(reach_new(&anyone, "order"), Ok(()));
        assert!(matches!(reach_new(&anyone, &namespace::qualified(OWNER, "x")), Err(ModelError::Unauthenticated(_))));
    }
}
