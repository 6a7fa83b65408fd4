//! The sandbox in the HTTP transport `valem serve --sandbox` runs: its routes nested at
//! `/sandbox` (which the transport exempts from the API key: a developer's browser has none to
//! send, and the routes check the session's credentials themselves), and a gate that names the
//! caller of every other route by its `X-Session-Token` (after the API key, which still guards
//! them), so that a session's calls over `/mcp` and REST reach its namespace only.

use std::sync::Arc;

use http::{HeaderMap, StatusCode};
use http_body_util::BodyExt as _;
use tooltable::Principal;
use tooltable_transports::http::{Http, HttpResponse, NestedHandler, NestedRequest, error_response};

use super::{PATH, SESSION_HEADER, Sandbox, reply};
use crate::namespace;
use crate::tools::registry::Models;

impl Sandbox {
    /// `http`, serving the sandbox too: see the module's description.
    pub fn serve(self: &Arc<Self>, http: Http<Models>) -> Http<Models> {
        http.nest(PATH, self.handler()).gate(self.gate())
    }

    /// What answers every request under `/sandbox`.
    pub fn handler(self: &Arc<Self>) -> NestedHandler {
        let sandbox = Arc::clone(self);
        Arc::new(move |request: NestedRequest| {
            let sandbox = Arc::clone(&sandbox);
            // A body error of a concrete type: a boxed one's lifetime keeps the future from
            // being proven `Send`.
            let request = request.map(|body| body.map_err(std::io::Error::other).boxed_unsync());
            Box::pin(async move { sandbox.handle(request).await })
        })
    }

    /// The caller of a request outside `/sandbox`: the session its `X-Session-Token` names, none
    /// without one, a 401 for a token of no live session.
    pub fn gate(
        self: &Arc<Self>,
    ) -> impl Fn(&HeaderMap) -> Result<Option<Principal>, HttpResponse> + Send + Sync + 'static + use<> {
        let sandbox = Arc::clone(self);
        move |headers: &HeaderMap| sandbox.caller(headers)
    }

    fn caller(self: &Arc<Self>, headers: &HeaderMap) -> Result<Option<Principal>, HttpResponse> {
        if !headers.contains_key(SESSION_HEADER) {
            return Ok(None);
        }
        self.end_idle_sessions();
        let token = reply::header(headers, SESSION_HEADER);
        match token.and_then(|token| self.ledger().sessions.authenticate(token, self.now())) {
            Some((namespace_id, _)) => Ok(Some(namespace::principal(&namespace_id))),
            None => Err(error_response(
                StatusCode::UNAUTHORIZED,
                "the X-Session-Token is no live sandbox session's: call pair_browser again",
            )),
        }
    }
}
