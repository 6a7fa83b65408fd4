//! Streamable HTTP at `/mcp` (MCP 2025-11-25, basic/transports): POST carries messages in, GET
//! opens the standalone event stream (or resumes one), DELETE ends the session.

mod batch;
pub(crate) mod listens;
pub(crate) mod logs;
pub(crate) mod registry;
mod stateless;
pub(crate) mod streams;

use std::net::IpAddr;
use std::sync::Arc;

use hyper::header::{ACCEPT, ALLOW, CONTENT_TYPE, HeaderName, HeaderValue};
use hyper::{HeaderMap, Method, Request, StatusCode};
use serde_json::json;
use tooltable::transport::jsonrpc::{self, Incoming as Message, RequestId, RpcError};
use tooltable::transport::{RequestContext, SUPPORTED_VERSIONS, StatelessCall};

use super::body::{self, HttpResponse, RequestBody};
use super::connections::Hangup;
use super::{HttpContext, auth};
use registry::{CreateError, HttpSession};
use streams::FirstAnswer;

/// The methods `/mcp` serves.
pub(crate) const METHODS: &str = "GET, POST, DELETE";
// Named once: a header looked up by a string is parsed and checked on every request.
const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");
const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// Who sent a request: the client's address (which the session caps count by), what each of its
/// messages comes with (the principal its credentials name), and its connection's hangup watch
/// (on `serve`'s connections).
pub(crate) struct Caller {
    pub(crate) client: IpAddr,
    pub(crate) context: RequestContext,
    pub(crate) hangup: Option<Hangup>,
}

/// Answers a request to `/mcp`.
pub(crate) async fn handle<S: Send + Sync + 'static, B: RequestBody>(
    cx: &HttpContext<S>,
    req: Request<B>,
    caller: &Caller,
) -> HttpResponse {
    if req.method() != Method::POST
        && let Err(response) = check_version(req.headers())
    {
        return response;
    }
    match *req.method() {
        Method::POST => post(cx, req, caller).await,
        Method::GET => get(cx, &req, caller),
        Method::DELETE => delete(cx, &req, caller),
        _ => {
            let mut r = body::error(StatusCode::METHOD_NOT_ALLOWED, "use POST, GET or DELETE on /mcp");
            r.headers_mut().insert(ALLOW, HeaderValue::from_static(METHODS));
            r
        }
    }
}

/// An `MCP-Protocol-Version` this server does not speak is refused (absent means 2025-03-26).
fn check_version(headers: &HeaderMap) -> Result<(), HttpResponse> {
    match headers.get(&VERSION_HEADER).map(|v| v.to_str().unwrap_or("")) {
        Some(v) if !SUPPORTED_VERSIONS.contains(&v) => Err(body::error(
            StatusCode::BAD_REQUEST,
            format!("unsupported MCP-Protocol-Version {v:?}; supported: {}", SUPPORTED_VERSIONS.join(", ")),
        )),
        _ => Ok(()),
    }
}

/// Which of the two kinds of answer `/mcp` gives a request's `Accept` takes.
struct Accepts {
    json: bool,
    event_stream: bool,
}

/// The `Accept` MCP clients send, which is matched whole before any value is read item by item.
const USUAL_ACCEPT: &[u8] = b"application/json, text/event-stream";

/// Reads `Accept` once for both kinds, as bytes: every request reads it.
fn accepts(headers: &HeaderMap) -> Accepts {
    let mut accepts = Accepts { json: false, event_stream: false };
    let mut values = headers.get_all(ACCEPT).iter();
    if let (Some(value), None) = (values.next(), values.next())
        && value.as_bytes() == USUAL_ACCEPT
    {
        return Accepts { json: true, event_stream: true };
    }
    // A value that is not visible text names no type.
    for value in headers.get_all(ACCEPT).iter().filter(|v| v.to_str().is_ok()) {
        for item in value.as_bytes().split(|&b| b == b',') {
            match item.split(|&b| b == b';').next().unwrap_or_default().trim_ascii() {
                b"*/*" => return Accepts { json: true, event_stream: true },
                b"application/json" => accepts.json = true,
                b"text/event-stream" => accepts.event_stream = true,
                _ => {}
            }
        }
    }
    accepts
}

fn rpc_error(status: StatusCode, id: Option<&jsonrpc::RequestId>, error: &RpcError) -> HttpResponse {
    body::json_text(status, jsonrpc::error(id, error))
}

/// The session named by the request's header, marked as just used; `None` without the header, or
/// when it names no session of this caller (a session is bound to the caller that opened it).
fn find_session<S: Send + Sync + 'static>(
    cx: &HttpContext<S>,
    headers: &HeaderMap,
    caller: &Caller,
) -> Option<Arc<HttpSession<S>>> {
    let id = headers.get(SESSION_HEADER)?.to_str().unwrap_or("");
    let same_caller = |http: &Arc<HttpSession<S>>| {
        http.session.opened_by().map(|p| &p.subject) == caller.context.principal().map(|p| &p.subject)
    };
    cx.sessions.get(id).filter(same_caller)
}

/// The session [`find_session`] found, else the refusal: 400 when the header is missing, 404 when
/// it names an unknown or expired session, or one another caller opened.
fn found_or_refusal<S: Send + Sync + 'static>(
    found: Option<&Arc<HttpSession<S>>>,
    headers: &HeaderMap,
) -> Result<Arc<HttpSession<S>>, HttpResponse> {
    match found {
        Some(http) => Ok(Arc::clone(http)),
        None if !headers.contains_key(SESSION_HEADER) => {
            Err(body::error(StatusCode::BAD_REQUEST, "missing Mcp-Session-Id header; initialize first"))
        }
        None => Err(body::error(StatusCode::NOT_FOUND, "unknown or expired session; initialize again")),
    }
}

/// The session named by the request's header, else the refusal of [`found_or_refusal`].
fn session<S: Send + Sync + 'static>(
    cx: &HttpContext<S>,
    headers: &HeaderMap,
    caller: &Caller,
) -> Result<Arc<HttpSession<S>>, HttpResponse> {
    found_or_refusal(find_session(cx, headers, caller).as_ref(), headers)
}

async fn post<S: Send + Sync + 'static, B: RequestBody>(
    cx: &HttpContext<S>,
    req: Request<B>,
    caller: &Caller,
) -> HttpResponse {
    let (head, incoming) = req.into_parts();
    let headers = head.headers;
    let accepted = accepts(&headers);
    let json_ok = accepted.json || !headers.contains_key(ACCEPT);
    let streamable = accepted.event_stream;
    if !json_ok && !streamable {
        return body::error(StatusCode::NOT_ACCEPTABLE, "accept application/json and text/event-stream");
    }
    let is_json = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json"));
    if !is_json {
        return body::error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "the body must be application/json");
    }
    let bytes = match body::read_limited(incoming, cx.options.max_body_bytes, cx.options.body_timeout).await {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    let _parsing = match cx.parsing.reserve(bytes.len()).await {
        Ok(permit) => permit,
        Err(response) => return response,
    };
    let bytes = body::without_bom(&bytes);
    let found = find_session(cx, &headers, caller);
    // The hot path: a tool call in an initialized session, read once, from its text. Anything
    // refused on the way takes the path below, which answers it.
    if let Some(http) = &found
        && check_version(&headers).is_ok()
        && let Some(call) = http.session.read_tool_call(bytes)
    {
        if let Some(tool) = call.tool()
            && let Err(refusal) = auth::scopes::authorize_tool(cx, &caller.context, tool)
        {
            return refusal;
        }
        let id = call.id().clone();
        let keepalive = cx.options.sse_keepalive;
        return exchange(http, &id, streamable, keepalive, Answered::IN_SESSION, || {
            http.session.call_tool(call, &caller.context)
        })
        .await;
    }
    if jsonrpc::is_batch(bytes)
        && let Some(http) = &found
        && http.session.accepts_batches()
    {
        if let Err(response) = check_version(&headers) {
            return response;
        }
        let authorize = |member: &Message| auth::scopes::authorize_message(cx, &caller.context, member);
        return Box::pin(batch::post(http, bytes, &caller.context, authorize)).await;
    }
    // A stateless tool call of the usual kind, read once, from its text; anything unusual (a
    // header that does not mirror it included) takes the path below, which answers it.
    if !headers.contains_key(SESSION_HEADER)
        && let Some(call) = StatelessCall::read(bytes)
        && stateless::mirrors(cx, &headers, &call)
    {
        if let Err(refusal) = auth::scopes::authorize_tool(cx, &caller.context, call.tool()) {
            return refusal;
        }
        return Box::pin(stateless::call(cx, call, streamable, caller)).await;
    }
    let message = match jsonrpc::decode(bytes) {
        Ok(message) => message,
        Err(e) => {
            if let Err(response) = check_version(&headers) {
                return response;
            }
            return Box::pin(undecodable(cx, found, e)).await;
        }
    };
    if let Err(refusal) = auth::scopes::authorize_message(cx, &caller.context, &message) {
        return refusal;
    }
    if !headers.contains_key(SESSION_HEADER) && stateless::speaks(&headers, &message) {
        return Box::pin(stateless::post(cx, &headers, message, streamable, caller)).await;
    }
    if let Err(response) = check_version(&headers) {
        return response;
    }
    let initialize = matches!(&message, Message::Request { method, .. } if method == "initialize")
        && !headers.contains_key(SESSION_HEADER);
    let http = if initialize {
        match cx.sessions.create(&cx.server, caller.client) {
            Ok(http) => http,
            Err(e @ CreateError::Full { .. }) => return body::error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
            Err(e @ CreateError::Id(_)) => return body::error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        }
    } else {
        match found_or_refusal(found.as_ref(), &headers) {
            Ok(http) => http,
            Err(response) => return response,
        }
    };
    let Message::Request { id, .. } = &message else {
        http.session.handle(message, &caller.context);
        return with_session(body::empty(StatusCode::ACCEPTED), &http);
    };
    let id = id.clone();
    let keepalive = cx.options.sse_keepalive;
    let response = exchange(&http, &id, streamable, keepalive, Answered::IN_SESSION, || {
        http.session.handle(message, &caller.context)
    })
    .await;
    if initialize {
        if http.session.is_initialized() {
            http.negotiated();
            return with_session(response, &http);
        }
        // A refused initialize leaves no session behind.
        cx.sessions.remove(&http.id);
    }
    response
}

/// How a request's answer is sent: the status of a JSON answer, and what its event stream keeps
/// alive.
pub(super) struct Answered {
    pub status: fn(&str) -> StatusCode,
    pub owner: Option<body::StreamOwner>,
}

impl Answered {
    /// A request of a session: 200 whatever the answer, the session kept by its registry.
    const IN_SESSION: Answered = Answered { status: |_| StatusCode::OK, owner: None };
}

/// Registers a request on its session's streams, hands it to the session, and answers the POST
/// with its first message: the response alone as JSON, anything before it as an event stream.
async fn exchange<S: Send + Sync + 'static>(
    http: &HttpSession<S>,
    id: &RequestId,
    streamable: bool,
    keepalive: std::time::Duration,
    answered: Answered,
    hand_over: impl FnOnce(),
) -> HttpResponse {
    let answer = {
        let mut streams = http.streams();
        if streams.is_pending(id) {
            // Not answered with that id: the client would get two responses for one id.
            let e = RpcError::invalid_request(format!("request id {id} is already in flight"));
            return rpc_error(StatusCode::CONFLICT, None, &e);
        }
        streams.expect(id.clone(), streamable)
    };
    hand_over();
    match answer.await {
        Ok(FirstAnswer::Json(text)) => body::json_text((answered.status)(&text), text),
        Ok(FirstAnswer::Stream(events)) => body::owned_event_stream(events, keepalive, answered.owner),
        // A cancelled request has no response; the POST ends with none.
        Ok(FirstAnswer::Cancelled) => body::empty(StatusCode::ACCEPTED),
        Err(_) => rpc_error(StatusCode::INTERNAL_SERVER_ERROR, Some(id), &RpcError::internal("the session closed")),
    }
}

/// A message that did not decode is a 400 with its JSON-RPC error, except a tool call whose
/// arguments nest too deep on an initialized session, which the session answers as a tool failure.
async fn undecodable<S: Send + Sync + 'static>(
    cx: &HttpContext<S>,
    found: Option<Arc<HttpSession<S>>>,
    e: jsonrpc::DecodeError,
) -> HttpResponse {
    let http = found.filter(|http| http.session.is_initialized());
    let (Some(id), true, Some(http)) = (e.id.clone(), e.too_deep_arguments, http) else {
        return rpc_error(StatusCode::BAD_REQUEST, e.id.as_ref(), &e.error);
    };
    exchange(&http, &id, false, cx.options.sse_keepalive, Answered::IN_SESSION, || http.session.answer_undecodable(&e))
        .await
}

fn with_session<S: Send + Sync + 'static>(mut response: HttpResponse, http: &HttpSession<S>) -> HttpResponse {
    if let Ok(v) = HeaderValue::from_str(&http.id) {
        response.headers_mut().insert(SESSION_HEADER, v);
    }
    response
}

fn get<S: Send + Sync + 'static, B: RequestBody>(
    cx: &HttpContext<S>,
    req: &Request<B>,
    caller: &Caller,
) -> HttpResponse {
    if !accepts(req.headers()).event_stream {
        return body::error(StatusCode::NOT_ACCEPTABLE, "GET /mcp opens an event stream: accept text/event-stream");
    }
    let http = match session(cx, req.headers(), caller) {
        Ok(http) => http,
        Err(response) => return response,
    };
    let last = req.headers().get("last-event-id").and_then(|v| v.to_str().ok());
    let events = http.streams().attach(last);
    with_session(body::event_stream(events, cx.options.sse_keepalive), &http)
}

fn delete<S: Send + Sync + 'static, B: RequestBody>(
    cx: &HttpContext<S>,
    req: &Request<B>,
    caller: &Caller,
) -> HttpResponse {
    let http = match session(cx, req.headers(), caller) {
        Ok(http) => http,
        Err(response) => return response,
    };
    cx.sessions.remove(&http.id);
    body::json(StatusCode::OK, &json!({ "deleted": http.id }))
}
