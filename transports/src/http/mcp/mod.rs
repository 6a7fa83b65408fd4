//! Streamable HTTP at `/mcp` (MCP 2025-11-25, basic/transports): POST carries messages in, GET
//! opens the standalone event stream (or resumes one), DELETE ends the session.

mod batch;
pub(crate) mod connection;
mod headers;
pub(crate) mod listens;
pub(crate) mod logs;
mod one_call;
pub(crate) mod registry;
mod stateless;
pub(crate) mod streams;

use std::net::IpAddr;
use std::sync::Arc;

use hyper::header::{ALLOW, HeaderName, HeaderValue};
use hyper::{HeaderMap, Method, Request, StatusCode};
use serde_json::json;
use tooltable::transport::jsonrpc::{self, Incoming as Message, RequestId, RpcError};
use tooltable::transport::{RequestContext, SUPPORTED_VERSIONS, StatelessCall};

use super::body::{self, HttpResponse, RequestBody};
use super::connections::Hangup;
use super::{HttpContext, auth};
use connection::Kept;
use headers::{PostHeaders, accepts};
use registry::{CreateError, HttpSession, LastSession};
use streams::FirstAnswer;

/// The methods `/mcp` serves.
pub(crate) const METHODS: &str = "GET, POST, DELETE";
// Named once: a header looked up by a string is parsed and checked on every request.
const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");
const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");
const METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");
const NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");

/// Who sent a request: the client's address (which the session caps count by), what each of its
/// messages comes with (the principal its credentials name), and its connection's hangup watch
/// (on `serve`'s connections).
pub(crate) struct Caller {
    pub(crate) client: IpAddr,
    pub(crate) context: RequestContext,
    pub(crate) hangup: Option<Hangup>,
}

/// Answers a request to `/mcp`.
/// `kept` is what the request's connection keeps between its requests, when it keeps anything.
pub(crate) async fn handle<S: Send + Sync + 'static, B: RequestBody>(
    cx: &HttpContext<S>,
    req: Request<B>,
    caller: &Caller,
    kept: Option<&Kept<S>>,
) -> HttpResponse {
    if req.method() != Method::POST
        && let Err(response) = check_version(req.headers())
    {
        return response;
    }
    match *req.method() {
        Method::POST => post(cx, req, caller, kept).await,
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
    check_version_header(headers.get(&VERSION_HEADER))
}

/// [`check_version`] of the header's value.
fn check_version_header(version: Option<&HeaderValue>) -> Result<(), HttpResponse> {
    match version.map(|v| v.to_str().unwrap_or("")) {
        Some(v) if !SUPPORTED_VERSIONS.contains(&v) => Err(body::error(
            StatusCode::BAD_REQUEST,
            format!("unsupported MCP-Protocol-Version {v:?}; supported: {}", SUPPORTED_VERSIONS.join(", ")),
        )),
        _ => Ok(()),
    }
}

fn rpc_error(status: StatusCode, id: Option<&jsonrpc::RequestId>, error: &RpcError) -> HttpResponse {
    body::json_text(status, jsonrpc::error(id, error))
}

/// The session named by the request's `Mcp-Session-Id`, marked as just used; `None` without the
/// header, or when it names no session of this caller (a session is bound to the caller that
/// opened it).
fn find_session<S: Send + Sync + 'static>(
    cx: &HttpContext<S>,
    header: Option<&HeaderValue>,
    caller: &Caller,
    last: Option<&LastSession<S>>,
) -> Option<Arc<HttpSession<S>>> {
    let id = header?.to_str().unwrap_or("");
    let same_caller = |http: &Arc<HttpSession<S>>| {
        http.session.opened_by().map(|p| &p.subject) == caller.context.principal().map(|p| &p.subject)
    };
    match last {
        Some(last) => cx.sessions.get_after(id, last),
        None => cx.sessions.get(id),
    }
    .filter(same_caller)
}

/// The session [`find_session`] found, else the refusal: 400 when the header is missing, 404 when
/// it names an unknown or expired session, or one another caller opened.
fn found_or_refusal<S: Send + Sync + 'static>(
    found: Option<&Arc<HttpSession<S>>>,
    header: Option<&HeaderValue>,
) -> Result<Arc<HttpSession<S>>, HttpResponse> {
    match found {
        Some(http) => Ok(Arc::clone(http)),
        None if header.is_none() => {
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
    let header = headers.get(SESSION_HEADER);
    found_or_refusal(find_session(cx, header, caller, None).as_ref(), header)
}

async fn post<S: Send + Sync + 'static, B: RequestBody>(
    cx: &HttpContext<S>,
    req: Request<B>,
    caller: &Caller,
    kept: Option<&Kept<S>>,
) -> HttpResponse {
    let (head, incoming) = req.into_parts();
    let headers = head.headers;
    let read = PostHeaders::of(&headers);
    let json_ok = read.accepts.json || !read.any_accept;
    let streamable = read.accepts.event_stream;
    if !json_ok && !streamable {
        return body::error(StatusCode::NOT_ACCEPTABLE, "accept application/json and text/event-stream");
    }
    if !read.is_json() {
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
    let found = find_session(cx, read.session, caller, kept.map(|k| &k.last_session));
    // The hot path: a tool call in an initialized session, read once, from its text. Anything
    // refused on the way takes the path below, which answers it.
    if let Some(http) = &found
        && check_version_header(read.version).is_ok()
        && let Some(call) = http.session.read_tool_call(bytes)
    {
        if let Some(tool) = call.tool()
            && let Err(refusal) = auth::scopes::authorize_tool(cx, &caller.context, tool)
        {
            return refusal;
        }
        let id = call.id().clone();
        let keepalive = cx.options.sse_keepalive;
        return exchange(http, &id, streamable, keepalive, Answered::in_session(headers), || {
            http.session.call_tool(call, &caller.context)
        })
        .await;
    }
    if jsonrpc::is_batch(bytes)
        && let Some(http) = &found
        && http.session.accepts_batches()
    {
        if let Err(response) = check_version_header(read.version) {
            return response;
        }
        let authorize = |member: &Message| auth::scopes::authorize_message(cx, &caller.context, member);
        return Box::pin(batch::post(http, bytes, &caller.context, authorize)).await;
    }
    // A stateless tool call of the usual kind, read once, from its text; anything unusual (a
    // header that does not mirror it included) takes the path below, which answers it.
    if read.session.is_none()
        && let Some(call) = StatelessCall::read(bytes, &cx.server)
        && stateless::mirrors(&read, &call)
    {
        if let Err(refusal) = auth::scopes::authorize_tool(cx, &caller.context, call.tool()) {
            return refusal;
        }
        return stateless::call(cx, call, headers, streamable, caller, kept).await;
    }
    let message = match jsonrpc::decode(bytes) {
        Ok(message) => message,
        Err(e) => {
            if let Err(response) = check_version_header(read.version) {
                return response;
            }
            return Box::pin(undecodable(cx, found, e)).await;
        }
    };
    if let Err(refusal) = auth::scopes::authorize_message(cx, &caller.context, &message) {
        return refusal;
    }
    if read.session.is_none() && stateless::speaks(&headers, &message) {
        return Box::pin(stateless::post(cx, &headers, message, streamable, caller)).await;
    }
    if let Err(response) = check_version_header(read.version) {
        return response;
    }
    let initialize =
        matches!(&message, Message::Request { method, .. } if method == "initialize") && read.session.is_none();
    let http = if initialize {
        match cx.sessions.create(&cx.server, caller.client) {
            Ok(http) => http,
            Err(e @ CreateError::Full { .. }) => return body::error(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
            Err(e @ CreateError::Id(_)) => return body::error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        }
    } else {
        match found_or_refusal(found.as_ref(), read.session) {
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
    let response = exchange(&http, &id, streamable, keepalive, Answered::in_session(HeaderMap::new()), || {
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

/// How a request's answer is sent: the status of a JSON answer and the map its headers go into
/// (see [`body::json_text_in`]), and what its event stream keeps alive.
pub(super) struct Answered {
    pub status: fn(&str) -> StatusCode,
    pub headers: HeaderMap,
    pub owner: Option<body::StreamOwner>,
}

impl Answered {
    /// A request of a session: 200 whatever the answer, the session kept by its registry.
    fn in_session(headers: HeaderMap) -> Answered {
        Answered { status: |_| StatusCode::OK, headers, owner: None }
    }
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
    answer_post(answer.await.ok(), id, keepalive, answered)
}

/// The POST's answer to request `id`, from its first answer: `None` when the session closed first.
fn answer_post(
    answer: Option<FirstAnswer>,
    id: &RequestId,
    keepalive: std::time::Duration,
    answered: Answered,
) -> HttpResponse {
    match answer {
        Some(FirstAnswer::Json(text)) => body::json_text_in(answered.headers, (answered.status)(&text), text),
        Some(FirstAnswer::Stream(events)) => body::owned_event_stream(events, keepalive, answered.owner),
        // A cancelled request has no response; the POST ends with none.
        Some(FirstAnswer::Cancelled) => body::empty(StatusCode::ACCEPTED),
        None => rpc_error(StatusCode::INTERNAL_SERVER_ERROR, Some(id), &RpcError::internal("the session closed")),
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
    let answered = Answered::in_session(HeaderMap::new());
    exchange(&http, &id, false, cx.options.sse_keepalive, answered, || http.session.answer_undecodable(&e)).await
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
