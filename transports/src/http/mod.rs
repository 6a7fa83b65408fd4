//! The HTTP transport: Streamable HTTP at `/mcp`, the REST routes of the table, and
//! `/openapi.json`, on one listener (hyper 1.x on tokio).

pub mod api_key;
pub mod body;
pub mod connections;
pub mod cors;
pub mod event_channel;
pub mod guard;
pub mod mcp;
pub mod slots;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tooltable::Server;

use crate::rest::{self, openapi, routes::Routes};

use api_key::ApiKey;
use body::{HttpResponse, RequestBody};
use guard::AccessPolicy;
use mcp::registry::{Registry, SessionLimits};

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The address the CLI's `serve` binds (loopback unless told otherwise). [`serve`] itself takes
    /// a bound listener and does not read it.
    pub listen: SocketAddr,
    pub access: AccessPolicy,
    /// The largest request body accepted (413 beyond).
    pub max_body_bytes: usize,
    /// Bytes of large request bodies (over 64 KiB) parsed at once; one more waits up to the body
    /// timeout, then gets a 503.
    pub max_parsing_bytes: usize,
    /// The largest REST response body sent; a larger result is a 413 error body instead.
    pub max_response_bytes: usize,
    /// Connections open at once; one more is answered 503 and closed. Lowered to what the
    /// descriptor limit leaves.
    pub max_connections: usize,
    /// How long a connection may take to send a request's line and headers, counted from when it
    /// opens or its previous response ends: it bounds slow headers and idle kept-alive connections.
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive once its headers have (408 beyond).
    pub body_timeout: Duration,
    /// How long a response may wait for a client that reads none of it before the connection ends.
    pub stall_timeout: Duration,
    /// A session unused this long expires (404 afterwards).
    pub session_idle: Duration,
    /// Sessions on the server; at the cap the least recently used idle one is ended.
    pub max_sessions: usize,
    /// Sessions of one client address; at the cap its least recently used idle one is ended.
    pub max_sessions_per_client: usize,
    /// Bytes of events one session keeps for clients that reconnect (`Last-Event-ID`); the oldest
    /// go first, and a larger event is delivered live but not kept.
    pub log_bytes_per_session: usize,
    /// Bytes of such events all sessions together keep.
    pub log_bytes_per_server: usize,
    /// The reconnection delay event streams announce.
    pub sse_retry_ms: u64,
    /// An event stream with nothing to send this long sends a keepalive comment.
    pub sse_keepalive: Duration,
    /// Bytes of events an open event stream's client may leave unread; past them the stream is
    /// closed (logged) and the client resumes from the session's log with `Last-Event-ID`.
    pub max_unread_event_bytes: usize,
    /// On SIGINT/SIGTERM, how long in-flight requests may take to finish.
    pub shutdown_grace: Duration,
    /// When set, every request but `GET /health` and CORS preflights must carry it as a bearer
    /// token (401 otherwise).
    pub api_key: Option<ApiKey>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            access: AccessPolicy::default(),
            max_body_bytes: 4 * 1024 * 1024,
            max_parsing_bytes: 16 * 1024 * 1024,
            max_response_bytes: 16 * 1024 * 1024,
            max_connections: 1024,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            stall_timeout: Duration::from_secs(30),
            session_idle: Duration::from_secs(30 * 60),
            max_sessions: 4096,
            max_sessions_per_client: 1024,
            log_bytes_per_session: 1024 * 1024,
            log_bytes_per_server: 64 * 1024 * 1024,
            sse_retry_ms: 1000,
            sse_keepalive: Duration::from_secs(15),
            max_unread_event_bytes: 1024 * 1024,
            shutdown_grace: Duration::from_secs(10),
            api_key: None,
        }
    }
}

/// What every request handler shares.
pub struct HttpContext<S: Send + Sync + 'static> {
    pub server: Server<S>,
    pub options: HttpOptions,
    pub sessions: Registry<S>,
    pub routes: Routes,
    /// `/openapi.json`, generated once; each answer shares these bytes.
    pub openapi: hyper::body::Bytes,
    /// Large request bodies take turns being parsed.
    pub parsing: body::ParseBudget,
    /// The server's own check of every request, if it has one.
    pub gate: Option<RequestGate>,
}

/// A check every request passes after the Origin and Host checks and before it is served: a
/// refusal to answer with (a missing bearer token, say), or `None` to go on.
pub type RequestGate = Arc<dyn Fn(&hyper::HeaderMap) -> Option<HttpResponse> + Send + Sync>;

/// Serves until `shutdown` resolves, then lets in-flight requests finish within the grace period.
pub async fn serve<S: Send + Sync + 'static>(
    server: Server<S>,
    listener: TcpListener,
    options: HttpOptions,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    serve_gated(server, listener, options, shutdown, None).await
}

/// [`serve`], with every request first passing `gate`.
pub async fn serve_gated<S: Send + Sync + 'static>(
    server: Server<S>,
    listener: TcpListener,
    options: HttpOptions,
    shutdown: impl Future<Output = ()>,
    gate: Option<RequestGate>,
) -> std::io::Result<()> {
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
    let openapi = openapi::document(server.info(), server.instructions(), &descriptors).to_string().into();
    let parsing = body::ParseBudget::new(options.max_parsing_bytes, options.body_timeout);
    let cx = Arc::new(HttpContext { server, options, sessions, routes, openapi, parsing, gate });
    let reaper = tokio::spawn(expire_sessions(Arc::clone(&cx)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut tasks = tokio::task::JoinSet::new();
    let cap = connections::effective_cap(cx.options.max_connections);
    let slots = slots::Slots::new(cap);
    let refusals = Arc::new(connections::Refusals::new(cap));
    let mut backoff = connections::Backoff::default();
    let mut http = http1::Builder::new();
    // A client that shuts its write side down still gets the answers to what it sent.
    http.timer(TokioTimer::new()).header_read_timeout(cx.options.header_timeout).half_close(true);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = connections::accept(&listener, &mut backoff) => accepted,
            () = &mut shutdown => break,
        };
        while tasks.try_join_next().is_some() {}
        let (cx, slots, refusals) = (Arc::clone(&cx), Arc::clone(&slots), Arc::clone(&refusals));
        let (http, watcher) = (http.clone(), graceful.watcher());
        tasks.spawn(async move {
            let Some(slot) = slots.claim().await else {
                return refusals.refuse(stream);
            };
            // Answers are small and written in one go; Nagle's delay would only add latency.
            let _ = stream.set_nodelay(true);
            let io = TokioIo::new(connections::StallGuard::new(stream, cx.options.stall_timeout));
            let client = peer.ip();
            let connection = Arc::clone(&slot.connection);
            let service = service_fn(move |req: Request<hyper::body::Incoming>| {
                let cx = Arc::clone(&cx);
                let busy = connection.begin();
                let req = req.map(|body| connection.receive(body));
                async move {
                    let response = dispatch(&cx, req, client).await;
                    Ok::<_, std::convert::Infallible>(response.map(|body| busy.carrying(body)))
                }
            });
            let conn = watcher.watch(http.serve_connection(io, service));
            tokio::select! {
                ended = conn => if let Err(e) = ended {
                    tracing::debug!("connection ended: {e}");
                },
                () = slot.connection.closed_for_room() => tracing::debug!("closed an idle connection to make room"),
            }
        });
    }
    drop(listener);
    reaper.abort();
    // Standalone event streams never end by themselves: close them; requests in flight finish.
    cx.sessions.end_standalone_streams();
    if tokio::time::timeout(cx.options.shutdown_grace, graceful.shutdown()).await.is_err() {
        tracing::warn!("shutdown grace period over; dropping the connections still open");
        tasks.abort_all();
    }
    cx.sessions.clear();
    Ok(())
}

async fn expire_sessions<S: Send + Sync + 'static>(cx: Arc<HttpContext<S>>) {
    let period = (cx.sessions.idle_limit() / 4).clamp(Duration::from_millis(100), Duration::from_secs(60));
    loop {
        tokio::time::sleep(period).await;
        let expired = cx.sessions.expire();
        if expired > 0 {
            tracing::info!(expired, "idle sessions expired");
        }
    }
}

/// Answers one request from `client`'s address.
async fn dispatch<S: Send + Sync + 'static>(
    cx: &HttpContext<S>,
    req: Request<RequestBody>,
    client: std::net::IpAddr,
) -> HttpResponse {
    if let Err(refusal) = cx.options.access.check(req.headers()) {
        return body::error(StatusCode::FORBIDDEN, refusal.to_string());
    }
    if req.uri().path() == api_key::HEALTH_PATH && req.method() == hyper::Method::GET {
        return api_key::health();
    }
    // A CORS preflight carries no credentials by design; it reveals only the allowed methods.
    let preflight = req.method() == hyper::Method::OPTIONS;
    if let Some(refusal) = cx.options.api_key.as_ref().filter(|_| !preflight).and_then(|key| key.check(req.headers())) {
        return refusal;
    }
    if let Some(refusal) = cx.gate.as_ref().and_then(|gate| gate(req.headers())) {
        return refusal;
    }
    let cross_origin = cors::allowed_origin(&cx.options.access, req.headers());
    let mut response = if preflight {
        options(cx, &req, cross_origin.is_some())
    } else {
        match req.uri().path() {
            "/mcp" => mcp::handle(cx, req, client).await,
            "/openapi.json" if req.method() == hyper::Method::GET => {
                body::bytes(StatusCode::OK, "application/json", cx.openapi.clone())
            }
            _ => rest::handle(cx, req).await,
        }
    };
    if let Some(origin) = cross_origin {
        cors::allow(&mut response, origin);
    }
    response
}

/// `OPTIONS` (a CORS preflight, usually) on `/mcp`, `/openapi.json` or a REST route.
fn options<S: Send + Sync + 'static>(
    cx: &HttpContext<S>,
    req: &Request<RequestBody>,
    cross_origin: bool,
) -> HttpResponse {
    let path = req.uri().path();
    let methods = match path {
        "/mcp" => mcp::METHODS.to_owned(),
        "/openapi.json" => "GET".to_owned(),
        _ => match cx.routes.resolve(hyper::Method::OPTIONS.as_str(), path) {
            rest::routes::Resolution::WrongMethod(methods) => methods.join(", "),
            _ => return body::error(StatusCode::NOT_FOUND, format!("no route for {path}")),
        },
    };
    cors::options(&methods, req.headers(), cross_origin)
}
