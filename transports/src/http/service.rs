//! The HTTP transport as a service: what `serve` runs behind its listener, and what a host
//! application mounts among its own routes.

use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::{Method, Request, StatusCode};
use tooltable::context::Transport;
use tooltable::transport::RequestContext;
use tooltable::{Principal, Server};

use super::body::{self, HttpResponse, RequestBody};
use super::connections::Hangup;
use super::mcp::connection::Kept;
use super::mcp::registry::{Registry, SessionLimits};
use super::rate_limit::{Caller, RateLimiter};
use super::{HttpOptions, NestedHandler, RequestGate, api_key, auth, cors, mcp};
use crate::rest::{self, openapi, routes::Routes};

/// The Streamable HTTP endpoint (both eras), the REST routes and the OpenAPI document of one
/// server, as a [`tower_service::Service`] over [`http`](hyper::http) requests: what
/// [`Http::serve`](super::Http::serve) runs behind its listener, and what a host application
/// mounts among its own routes (with axum, `Router::nest_service`).
///
/// The whole service answers `/mcp`, `/openapi.json`, `GET /health` and the REST routes, as
/// `serve` does; [`mcp`](Self::mcp) is the endpoint alone, at whatever path it is mounted, and
/// [`rest`](Self::rest) the REST routes and `openapi.json` under the prefix given to
/// [`Http::rest_prefix`](super::Http::rest_prefix). All three share the server's sessions and
/// apply every guard of [`HttpOptions`]: the Origin and Host checks, the API key, the request
/// gate, CORS, body and session limits.
///
/// The session caps count sessions per client address, which the service reads from the
/// request's [`ClientAddr`] extension: a host that wants the per-client cap inserts it (requests
/// without one count as one client).
///
/// A request's caller is the principal the [gate](super::Http::gate) names, else a
/// [`Principal`] in the request's extensions (put there by the host's own authentication), else
/// none; calls see it as [`Cx::principal`](tooltable::Cx::principal).
///
/// Clones share everything. [`shutdown`](Self::shutdown) ends the event streams that never end
/// by themselves, so that the host's graceful shutdown can finish.
///
/// ```
/// use tooltable::Server;
/// use tooltable_transports::http::{Http, HttpOptions};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let server = Server::builder(()).info("notes", "1.0.0").build().unwrap();
/// let http = Http::new(server).options(HttpOptions::default()).rest_prefix("/api").service();
/// let (mcp, rest) = (http.mcp(), http.rest());
/// // e.g. axum::Router::new().nest_service("/mcp", mcp).nest_service("/api", rest)
/// # drop((mcp, rest));
/// # }
/// ```
pub struct HttpService<S: Send + Sync + 'static> {
    cx: Arc<HttpContext<S>>,
    part: Part,
    /// On the service of one of `serve`'s connections, what `/mcp` keeps of it between requests.
    kept: Option<Kept<S>>,
}

impl<S: Send + Sync + 'static> Clone for HttpService<S> {
    fn clone(&self) -> Self {
        HttpService { cx: Arc::clone(&self.cx), part: self.part, kept: None }
    }
}

impl<S: Send + Sync + 'static> std::fmt::Debug for HttpService<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpService")
            .field("part", &self.part)
            .field("options", &self.cx.options)
            .finish_non_exhaustive()
    }
}

/// Which requests a service answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// `/mcp`, `/openapi.json`, `/health` and the REST routes: the standalone server.
    Whole,
    /// The Streamable HTTP endpoint, at any path.
    Mcp,
    /// The REST routes and `/openapi.json`, relative to where they are mounted.
    Rest,
}

/// The address of the client that sent a request, as a request extension: the session caps
/// count by it. `serve` knows it from the connection; a host that mounts the service inserts it
/// (from its own connection information) for the per-client cap to apply per client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

/// What every request handler shares.
pub(crate) struct HttpContext<S: Send + Sync + 'static> {
    pub(crate) server: Server<S>,
    pub(crate) options: HttpOptions,
    pub(crate) sessions: Registry<S>,
    pub(crate) routes: Routes,
    /// `openapi.json`, generated once; each answer shares these bytes.
    pub(crate) openapi: hyper::body::Bytes,
    /// Where a host mounts the REST routes (see `Http::rest_prefix`): a `Location` starts there.
    pub(crate) rest_prefix: String,
    /// Large request bodies take turns being parsed.
    pub(crate) parsing: body::ParseBudget,
    /// The server's own check of every request, if it has one.
    gate: Option<RequestGate>,
    /// The callers' token buckets, when requests are rate limited.
    rate_limit: Option<RateLimiter>,
    /// The OAuth resource server every request passes, when the server is one.
    pub(crate) oauth: Option<auth::ResourceServer>,
    /// Prefixes served by handlers of the server's own, each with its handler.
    nested: Vec<(String, NestedHandler)>,
    /// Set by `shutdown`: new requests are refused with 503.
    closing: AtomicBool,
    /// The task that expires idle sessions, started with the first request (inside the host's
    /// runtime, which building the service does not need).
    reaper: OnceLock<tokio::task::AbortHandle>,
}

impl<S: Send + Sync + 'static> Drop for HttpContext<S> {
    fn drop(&mut self) {
        if let Some(reaper) = self.reaper.get() {
            reaper.abort();
        }
    }
}

impl<S: Send + Sync + 'static> HttpService<S> {
    pub(super) fn new(
        server: Server<S>,
        options: HttpOptions,
        gate: Option<RequestGate>,
        oauth: Option<auth::ResourceServer>,
        rest_prefix: &str,
        nested: Vec<(String, NestedHandler)>,
    ) -> Self {
        let sessions = Registry::new(SessionLimits {
            idle: options.session_idle,
            retry_ms: options.sse_retry_ms,
            max_sessions: options.max_sessions,
            max_per_client: options.max_sessions_per_client,
            log_bytes_per_session: options.log_bytes_per_session,
            log_bytes_per_server: options.log_bytes_per_server,
            max_unread_event_bytes: options.max_unread_event_bytes,
        });
        let descriptors = server.table().descriptors();
        let routes = Routes::new(&descriptors);
        let mut document = openapi::document(server.info(), server.instructions(), &descriptors);
        if !rest_prefix.is_empty()
            && let Some(fields) = document.as_object_mut()
        {
            // Where the routes are, so that a client generated from the document finds them.
            fields.insert("servers".into(), serde_json::json!([{ "url": rest_prefix }]));
        }
        if let Some(oauth) = &oauth {
            oauth.secure(&mut document, &descriptors);
        }
        let openapi = document.to_string().into();
        let parsing = body::ParseBudget::new(options.max_parsing_bytes, options.body_timeout);
        let rate_limit = options.rate_limit.map(RateLimiter::new);
        let cx = HttpContext {
            server,
            options,
            sessions,
            routes,
            openapi,
            rest_prefix: rest_prefix.to_owned(),
            parsing,
            gate,
            rate_limit,
            oauth,
            nested,
            closing: AtomicBool::new(false),
            reaper: OnceLock::new(),
        };
        HttpService { cx: Arc::new(cx), part: Part::Whole, kept: None }
    }

    /// The Streamable HTTP endpoint alone (both eras), answering at whatever path it is mounted.
    pub fn mcp(&self) -> Self {
        HttpService { cx: Arc::clone(&self.cx), part: Part::Mcp, kept: None }
    }

    /// The REST routes and `openapi.json`, relative to where they are mounted (the document's
    /// `servers` names the prefix given to [`Http::rest_prefix`](super::Http::rest_prefix)).
    pub fn rest(&self) -> Self {
        HttpService { cx: Arc::clone(&self.cx), part: Part::Rest, kept: None }
    }

    /// The service of one connection of `serve`'s: it keeps what `/mcp` needs again between the
    /// connection's requests (see [`Kept`]).
    pub(super) fn for_connection(&self) -> Self {
        HttpService { kept: Some(Kept::default()), ..self.clone() }
    }

    pub(super) fn options(&self) -> &HttpOptions {
        &self.cx.options
    }

    /// The server this service serves.
    pub fn server(&self) -> &Server<S> {
        &self.cx.server
    }

    /// Starts shutting down: the event streams that never end by themselves (each session's
    /// GET stream) are closed, and new requests are answered 503, so that requests in flight
    /// finish and the host's graceful shutdown completes. The sessions end when the last clone
    /// of the service is dropped.
    pub fn shutdown(&self) {
        self.cx.closing.store(true, Ordering::Release);
        self.cx.sessions.end_standalone_streams();
    }

    /// Ends every session at once (their calls in flight are cancelled).
    pub(super) fn end_sessions(&self) {
        self.cx.sessions.clear();
    }

    /// Answers one request from `client`'s address, on a connection whose hangup a stream may
    /// watch (`serve`'s connections).
    pub(super) async fn answer<B: RequestBody>(
        &self,
        req: Request<B>,
        client: IpAddr,
        hangup: Option<Hangup>,
    ) -> HttpResponse {
        let cx = &*self.cx;
        cx.reaper.get_or_init(|| tokio::spawn(expire_sessions(Arc::downgrade(&self.cx))).abort_handle());
        if cx.closing.load(Ordering::Acquire) {
            return body::error(StatusCode::SERVICE_UNAVAILABLE, "the server is shutting down");
        }
        if let Err(refusal) = cx.options.access().check(req.headers()) {
            return body::error(StatusCode::FORBIDDEN, refusal.to_string());
        }
        let path = req.uri().path();
        if self.part == Part::Whole && path == api_key::HEALTH_PATH && req.method() == Method::GET {
            return api_key::health();
        }
        // A host application routes for itself: nesting is the standalone server's.
        if self.part == Part::Whole
            && let Some(handler) = self.nested(path)
        {
            return Box::pin(nested(cx, handler, req)).await;
        }
        // A CORS preflight carries no credentials by design; it reveals only the allowed methods.
        let preflight = req.method() == Method::OPTIONS;
        if let Some(refusal) =
            cx.options.api_key.as_ref().filter(|_| !preflight).and_then(|key| key.check(req.headers()))
        {
            return refusal;
        }
        let cross_origin = cors::allowed_origin(cx.options.access(), req.headers());
        let mut principal = None;
        if let Some(oauth) = &cx.oauth {
            // The metadata says how to get a token: it needs none. A page on another origin
            // reads it, and the challenge of a refusal, to find the authorization server.
            let answer = if self.part == Part::Whole && oauth.serves_metadata(path) && req.method() == Method::GET {
                Err(oauth.metadata(&auth::scopes::supported(&cx.server)))
            } else if preflight {
                Ok(None)
            } else {
                // Boxed, as are the other branches most requests do not take: hyper moves the
                // whole answer's future a few times per request, and its size is its largest state.
                Box::pin(oauth.authenticate(req.headers(), req.uri().query())).await.map(Some)
            };
            match answer {
                Ok(caller) => principal = caller,
                Err(mut response) => {
                    if let Some(origin) = cross_origin {
                        cors::allow(&mut response, origin);
                    }
                    return response;
                }
            }
        }
        // The token's principal, else the gate's, else one the host application's own
        // authentication put there.
        let principal = match cx.gate.as_ref().map(|gate| gate(req.headers())) {
            Some(Err(refusal)) => return refusal,
            Some(Ok(gated)) => principal.or(gated),
            None => principal,
        }
        .or_else(|| req.extensions().get::<Principal>().cloned());
        let target = self.target(path);
        let mut response = if preflight {
            options(cx, target, path, req.headers(), cross_origin.is_some())
        } else if let Some(refusal) = cx.over_rate_limit(target, req.method(), client, principal.as_ref()) {
            refusal
        } else {
            match target {
                Target::Mcp => {
                    let context = RequestContext::new(Transport::Http).with_principal(principal);
                    let caller = mcp::Caller { client, context, hangup };
                    mcp::handle(cx, req, &caller, self.kept.as_ref()).await
                }
                Target::OpenApi if req.method() == Method::GET => {
                    body::bytes(StatusCode::OK, "application/json", cx.openapi.clone())
                }
                Target::OpenApi | Target::Rest => {
                    rest::handle(cx, req, &RequestContext::new(Transport::Rest).with_principal(principal)).await
                }
            }
        };
        if let Some(origin) = cross_origin {
            cors::allow(&mut response, origin);
        }
        response
    }

    /// The handler of a nested prefix `path` is at or under.
    fn nested(&self, path: &str) -> Option<&NestedHandler> {
        let under =
            |prefix: &str| path.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
        self.cx.nested.iter().find(|(prefix, _)| under(prefix)).map(|(_, handler)| handler)
    }

    fn target(&self, path: &str) -> Target {
        match (self.part, path) {
            (Part::Mcp, _) | (Part::Whole, "/mcp") => Target::Mcp,
            (Part::Whole | Part::Rest, "/openapi.json") => Target::OpenApi,
            _ => Target::Rest,
        }
    }
}

impl<S: Send + Sync + 'static> HttpContext<S> {
    /// The 429 of a request past its caller's rate limit (its principal's, else its address's);
    /// REST requests and `/mcp` POSTs count, the rest do not.
    fn over_rate_limit(
        &self,
        target: Target,
        method: &Method,
        client: IpAddr,
        principal: Option<&Principal>,
    ) -> Option<HttpResponse> {
        let limiter = self.rate_limit.as_ref()?;
        let counted = match target {
            Target::Mcp => method == Method::POST,
            Target::Rest => true,
            Target::OpenApi => false,
        };
        if !counted {
            return None;
        }
        let caller = principal.map_or(Caller::Address(client), |p| Caller::Principal(p.subject.clone()));
        limiter.take(caller, std::time::Instant::now()).err().map(|wait| limiter.refusal(wait))
    }
}

/// A request to a nested handler, its body held to the body limit.
async fn nested<S: Send + Sync + 'static, B: RequestBody>(
    cx: &HttpContext<S>,
    handler: &NestedHandler,
    req: Request<B>,
) -> HttpResponse {
    use http_body_util::BodyExt as _;
    let limit = cx.options.max_body_bytes;
    let req = req.map(|body| http_body_util::Limited::new(body, limit).boxed_unsync());
    handler(req).await.map(body::ResponseBody::nested)
}

/// What a request is for.
#[derive(Clone, Copy)]
enum Target {
    Mcp,
    OpenApi,
    Rest,
}

/// `OPTIONS` (a CORS preflight, usually) on the endpoint, the document or a REST route.
fn options<S: Send + Sync + 'static>(
    cx: &HttpContext<S>,
    target: Target,
    path: &str,
    headers: &hyper::HeaderMap,
    cross_origin: bool,
) -> HttpResponse {
    let methods = match target {
        Target::Mcp => mcp::METHODS.to_owned(),
        Target::OpenApi => "GET".to_owned(),
        Target::Rest => match cx.routes.resolve(Method::OPTIONS.as_str(), path) {
            rest::routes::Resolution::WrongMethod(methods) => methods.join(", "),
            _ => return body::error(StatusCode::NOT_FOUND, format!("no route for {path}")),
        },
    };
    cors::options(&methods, headers, cross_origin)
}

/// Expires idle sessions now and then, for as long as the service lives.
async fn expire_sessions<S: Send + Sync + 'static>(cx: Weak<HttpContext<S>>) {
    let period = match cx.upgrade() {
        Some(cx) => (cx.sessions.idle_limit() / 4).clamp(Duration::from_millis(100), Duration::from_secs(60)),
        None => return,
    };
    loop {
        tokio::time::sleep(period).await;
        let Some(cx) = cx.upgrade() else { return };
        let expired = cx.sessions.expire();
        if expired > 0 {
            tracing::info!(expired, "idle sessions expired");
        }
    }
}

/// Requests without a [`ClientAddr`] count as this one client.
const UNKNOWN_CLIENT: IpAddr = IpAddr::V4(Ipv4Addr::UNSPECIFIED);

impl<S: Send + Sync + 'static, B: RequestBody> tower_service::Service<Request<B>> for HttpService<S> {
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let service = self.clone();
        let client = req.extensions().get::<ClientAddr>().map_or(UNKNOWN_CLIENT, |addr| addr.0);
        Box::pin(async move { Ok(service.answer(req, client, None).await) })
    }
}
