//! The forwarded model calls of a paired agent: each carries the session's token as
//! `X-Session-Token`, its model ids go out under the session's namespace and come back plain,
//! `list_models` shows the namespace's models only, and before pairing a model call is answered
//! here with the not-paired error. Subscriptions follow the namespaced state at the server, from
//! the moment the pairing is made.

use std::sync::Arc;

use http::header::{HeaderName, HeaderValue};
use serde_json::Value;
use tooltable::tool::Output;
use tooltable::{Error, ErrorKind};
use tooltable_transports::forward::{Hook, Outgoing};

use super::Link;
use crate::namespace;
use crate::sandbox::SESSION_HEADER;

/// What a model call before pairing is answered.
pub const NOT_PAIRED: &str = "Not paired with a browser session yet — call pair_browser and have the developer open \
    the link and approve it first.";

/// The state resource's URI, before its model's id.
const STATE: &str = "valem://state/";

#[derive(Debug)]
pub struct Namespacing(pub Arc<Link>);

impl Hook for Namespacing {
    fn outgoing(&self, _tool: &str, mut args: Value) -> Result<Outgoing, Error> {
        let Some((namespace_id, token)) = self.0.session() else {
            return Err(Error::new(ErrorKind::Forbidden, NOT_PAIRED));
        };
        let qualify = |v: &mut Value| {
            if let Some(id) = v.as_str() {
                *v = Value::String(namespace::qualified(&namespace_id, id));
            }
        };
        // The arguments that name a model: its id, the id a blob or a snapshot belongs to, a
        // new spec's id, a listing's cursor (an id it read).
        for field in ["id", "modelId", "cursor"] {
            args.get_mut(field).map(qualify);
        }
        args.get_mut("spec").and_then(|s| s.get_mut("id")).map(qualify);
        args.get_mut("snapshot").and_then(|s| s.get_mut("modelId")).map(qualify);
        Ok(Outgoing { args, headers: vec![header(&token)] })
    }

    fn incoming(&self, tool: &str, answer: Result<Output, Error>) -> Result<Output, Error> {
        let Some((namespace_id, _)) = self.0.session() else { return answer };
        let prefix = namespace::prefix(&namespace_id);
        match answer {
            Ok(Output::Json(value)) => {
                let value = if tool == "list_models" { own_models(value, &prefix) } else { value };
                Ok(Output::Json(namespace::strip(value, &prefix)))
            }
            Ok(content) => Ok(content),
            Err(failure) => Err(Error { kind: failure.kind, body: namespace::strip(failure.body, &prefix) }),
        }
    }

    fn remote_uri(&self, local: &str) -> Option<String> {
        let (namespace_id, _) = self.0.session()?;
        Some(match local.strip_prefix(STATE) {
            Some(id) => format!("{STATE}{}", namespace::qualified(&namespace_id, id)),
            None => local.to_owned(),
        })
    }

    fn local_uri(&self, remote: &str) -> Option<String> {
        let (namespace_id, _) = self.0.session()?;
        match remote.strip_prefix(STATE) {
            Some(id) => id.strip_prefix(&namespace::prefix(&namespace_id)).map(|own| format!("{STATE}{own}")),
            None => Some(remote.to_owned()),
        }
    }

    fn session_headers(&self) -> Vec<(HeaderName, HeaderValue)> {
        self.0.session().map(|(_, token)| vec![header(&token)]).unwrap_or_default()
    }

    fn changes(&self) -> Option<tokio::sync::watch::Receiver<()>> {
        Some(self.0.changes())
    }
}

/// The session's token as a header, marked sensitive.
fn header(token: &str) -> (HeaderName, HeaderValue) {
    let mut value = HeaderValue::from_str(token).unwrap_or_else(|_| HeaderValue::from_static(""));
    value.set_sensitive(true);
    (HeaderName::from_static(SESSION_HEADER), value)
}

/// A `list_models` answer (ids, or `{models, nextCursor}`) holding only the namespace's ids.
fn own_models(answer: Value, prefix: &str) -> Value {
    let keep = |ids: Vec<Value>| -> Vec<Value> {
        ids.into_iter().filter(|id| id.as_str().is_some_and(|id| id.starts_with(prefix))).collect()
    };
    match answer {
        Value::Array(ids) => Value::Array(keep(ids)),
        Value::Object(mut page) => {
            if let Some(Value::Array(ids)) = page.get_mut("models") {
                *ids = keep(std::mem::take(ids));
            }
            Value::Object(page)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NS: &str = "s0123456789abcdef0123";

    fn paired() -> Namespacing {
        let link = super::super::tests::link();
        link.pair("tok".into(), NS.into());
        Namespacing(link)
    }

    #[test]
    fn before_pairing_a_model_call_is_answered_here() {
        let hook = Namespacing(super::super::tests::link());
        let refused = hook.outgoing("get_state", json!({ "id": "order" })).unwrap_err();
        assert_eq!(refused.body, json!({ "error": NOT_PAIRED }));
        assert_eq!(hook.remote_uri("valem://state/order"), None, "nothing to follow at the server yet");
        assert!(hook.session_headers().is_empty());
    }

    #[test]
    fn ids_go_out_namespaced_with_the_token() {
        let hook = paired();
        let out = hook
            .outgoing("restore", json!({ "id": "order", "snapshot": { "modelId": "order", "baseDoc": { "id": "x" } } }))
            .unwrap();
        let q = |id: &str| namespace::qualified(NS, id);
        assert_eq!(
            out.args,
            json!({ "id": q("order"), "snapshot": { "modelId": q("order"), "baseDoc": { "id": "x" } } })
        );
        let (name, value) = &out.headers[0];
        assert_eq!((name.as_str(), value.to_str().unwrap()), ("x-session-token", "tok"));
        assert!(value.is_sensitive());
        let create = hook.outgoing("create_model", json!({ "spec": { "id": "acme/order", "schema": {} } })).unwrap();
        assert_eq!(create.args["spec"]["id"], q("acme/order"));
        let page = hook.outgoing("list_models", json!({ "cursor": "b" })).unwrap();
        assert_eq!(page.args["cursor"], q("b"));
    }

    #[test]
    fn answers_come_back_plain_and_the_listing_holds_the_namespace_only() {
        let hook = paired();
        let p = namespace::prefix(NS);
        let listed =
            hook.incoming("list_models", Ok(Output::Json(json!([format!("{p}a"), "stranger", format!("{p}b")]))));
        assert_eq!(listed, Ok(Output::Json(json!(["a", "b"]))));
        let paged = json!({ "models": [format!("{p}a"), "zz"], "nextCursor": format!("{p}a") });
        let paged = hook.incoming("list_models", Ok(Output::Json(paged)));
        assert_eq!(paged, Ok(Output::Json(json!({ "models": ["a"], "nextCursor": "a" }))));
        let failure = Error::new(ErrorKind::NotFound, format!("Model not found: {p}x"));
        assert_eq!(
            hook.incoming("get_state", Err(failure)).unwrap_err().body,
            json!({ "error": "Model not found: x" })
        );
    }

    #[test]
    fn subscriptions_follow_the_namespaced_state() {
        let hook = paired();
        let remote = format!("valem://state/{NS}__order");
        assert_eq!(hook.remote_uri("valem://state/order").as_deref(), Some(remote.as_str()));
        assert_eq!(hook.local_uri(&remote).as_deref(), Some("valem://state/order"));
        assert_eq!(hook.local_uri("valem://state/s9999999999999999999999__order"), None, "another session's");
        assert_eq!(hook.remote_uri("valem://guide/view-system").as_deref(), Some("valem://guide/view-system"));
    }
}
