//! A JSON-RPC batch POSTed to a session of revision 2025-03-26: answered with the array of its
//! responses as one JSON body, or 202 when it holds no request. Notifications and requests its
//! calls send on the way travel on the session's GET stream, as a plain JSON answer's do.

use hyper::StatusCode;
use tooltable::transport::RequestContext;
use tooltable::transport::jsonrpc::{self, Incoming, RequestId, RpcError};

use super::body::{self, HttpResponse};
use super::registry::HttpSession;
use super::{rpc_error, with_session};

pub(super) async fn post<S: Send + Sync + 'static>(
    http: &HttpSession<S>,
    bytes: &[u8],
    context: &RequestContext,
    authorize: impl Fn(&Incoming) -> Result<(), HttpResponse>,
) -> HttpResponse {
    let members = match jsonrpc::decode_batch(bytes) {
        Ok(members) => members,
        Err(e) => return rpc_error(StatusCode::BAD_REQUEST, None, &e.error),
    };
    // A member calling a tool its caller may not refuses the whole batch, before any runs.
    if let Some(refusal) = members.iter().flatten().find_map(|member| authorize(member).err()) {
        return refusal;
    }
    let ids: Vec<RequestId> = members
        .iter()
        .filter_map(|m| match m {
            Ok(Incoming::Request { id, .. }) => Some(id.clone()),
            Err(e) if e.too_deep_arguments => e.id.clone(),
            _ => None,
        })
        .collect();
    if let Err(id) = http.streams().hold(&ids) {
        // Not answered with that id: the client would get two responses for one id.
        let e = RpcError::invalid_request(format!("request id {id} is already in flight"));
        return rpc_error(StatusCode::CONFLICT, None, &e);
    }
    // Released however the POST ends, its client gone included.
    let _held = Held { http, ids };
    match http.session.handle_batch(members, context).await {
        Ok(Some(array)) => with_session(body::json_text(StatusCode::OK, array), http),
        Ok(None) => with_session(body::empty(StatusCode::ACCEPTED), http),
        Err(_) => rpc_error(StatusCode::INTERNAL_SERVER_ERROR, None, &RpcError::internal("the session closed")),
    }
}

/// The request ids of a batch being answered, held on the session's streams.
struct Held<'a, S: Send + Sync + 'static> {
    http: &'a HttpSession<S>,
    ids: Vec<RequestId>,
}

impl<S: Send + Sync + 'static> Drop for Held<'_, S> {
    fn drop(&mut self) {
        self.http.streams().release(&self.ids);
    }
}
