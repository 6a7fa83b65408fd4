//! The HTTP transport: Streamable HTTP at `/mcp` (both eras), the REST routes of the table,
//! and `/openapi.json`, on one listener of its own ([`Http::serve`]) or mounted in a host
//! application as a `tower` service ([`Http::service`]), with the same guards either way.

mod api_key;
pub(crate) mod auth;
pub(crate) mod body;
mod connections;
mod cors;
mod event_channel;
mod guard;
mod invalid;
mod listener;
pub(crate) mod mcp;
mod rate_limit;
mod service;
mod slots;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tooltable::Server;

pub use api_key::ApiKey;
pub use auth::OAuth;
pub use body::{HttpResponse, ResponseBody, error as error_response};
pub use invalid::InvalidSetting;
pub use rate_limit::RateLimit;
pub(crate) use service::HttpContext;
pub use service::{ClientAddr, HttpService};

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The address the CLI's `serve` binds (loopback unless told otherwise). [`Http::serve`] itself
    /// takes a bound listener and does not read it.
    pub listen: SocketAddr,
    /// Origins requests may come from besides localhost ones (`https://app.example.com`; `*`
    /// allows any), against DNS rebinding. These, and only these, may also call from a browser
    /// cross-origin (CORS).
    pub allowed_origins: Vec<String>,
    /// Host names requests may name besides localhost ones (`*` allows any).
    pub allowed_hosts: Vec<String>,
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
    /// `serve` checks it a few times per timeout (at least every second), so a connection is closed
    /// within a quarter of it (or a second) past it.
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
    /// When set, how many REST requests and `/mcp` POSTs one caller may make a second (in bursts
    /// of as many): its principal when the request names one, else its client address
    /// ([`ClientAddr`]). Past it they are answered 429 with `Retry-After`. At most 65,536 callers
    /// are followed at once.
    pub rate_limit: Option<RateLimit>,
}

impl HttpOptions {
    /// The origin and host lists as the checks read them.
    fn access(&self) -> guard::AccessPolicy<'_> {
        guard::AccessPolicy { allowed_origins: &self.allowed_origins, allowed_hosts: &self.allowed_hosts }
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
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
            rate_limit: None,
        }
    }
}

/// The server's own check of every request (see [`Http::gate`]).
pub(crate) type RequestGate =
    Arc<dyn Fn(&hyper::HeaderMap) -> Result<Option<tooltable::Principal>, HttpResponse> + Send + Sync>;

/// The HTTP transport of one server, to [`serve`](Self::serve) on a listener of its own or to
/// mount in a host application as a [`service`](Self::service).
///
/// ```no_run
/// use tooltable::Server;
/// use tooltable_transports::http::{Http, HttpOptions};
///
/// # #[tokio::main] async fn main() -> std::io::Result<()> {
/// let server = Server::builder(()).info("notes", "1.0.0").build().unwrap();
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// let options = HttpOptions { max_sessions: 100, ..HttpOptions::default() };
/// Http::new(server).options(options).serve(listener, async { tokio::signal::ctrl_c().await.unwrap() }).await
/// # }
/// ```
pub struct Http<S: Send + Sync + 'static> {
    server: Server<S>,
    options: HttpOptions,
    gate: Option<RequestGate>,
    oauth: Option<OAuth>,
    rest_prefix: String,
    nested: Vec<(String, NestedHandler)>,
}

/// A request given to a [nested](Http::nest) handler: its body boxed, whatever carried it.
pub type NestedRequest = hyper::Request<http_body_util::combinators::UnsyncBoxBody<hyper::body::Bytes, body::BoxError>>;

/// What answers the requests under a [nested](Http::nest) prefix, with a body whole or streamed,
/// boxed.
pub type NestedHandler = Arc<
    dyn Fn(
            NestedRequest,
        ) -> std::pin::Pin<
            Box<
                dyn Future<
                        Output = hyper::Response<
                            http_body_util::combinators::BoxBody<hyper::body::Bytes, std::convert::Infallible>,
                        >,
                    > + Send,
            >,
        > + Send
        + Sync,
>;

impl<S: Send + Sync + 'static> std::fmt::Debug for Http<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http")
            .field("options", &self.options)
            .field("rest_prefix", &self.rest_prefix)
            .finish_non_exhaustive()
    }
}

impl<S: Send + Sync + 'static> Http<S> {
    /// `server`'s transport with the default [`HttpOptions`].
    pub fn new(server: Server<S>) -> Self {
        Http {
            server,
            options: HttpOptions::default(),
            gate: None,
            oauth: None,
            rest_prefix: String::new(),
            nested: Vec::new(),
        }
    }

    /// Its settings: limits, timeouts, the Origin and Host policy, the API key.
    pub fn options(mut self, options: HttpOptions) -> Self {
        self.options = options;
        self
    }

    /// A check of the server's own that every request passes after the Origin and Host checks
    /// and before it is served: the principal its credentials name, `None` for a request without
    /// any, or a refusal to answer with (a missing or unknown bearer token, say). The principal
    /// reaches the calls as [`Cx::principal`](tooltable::Cx::principal), and a Streamable HTTP
    /// session is bound to the principal that opened it: another gets 404, as for an unknown
    /// session.
    ///
    /// ```
    /// use hyper::StatusCode;
    /// use hyper::header::AUTHORIZATION;
    /// use tooltable::{Principal, Server};
    /// use tooltable_transports::http::{Http, error_response};
    ///
    /// let server = Server::builder(()).build()?;
    /// let http = Http::new(server).gate(|headers| match headers.get(AUTHORIZATION).map(|v| v.as_bytes()) {
    ///     None => Ok(None),
    ///     Some(b"Bearer alice") => Ok(Some(Principal::new("alice"))),
    ///     Some(_) => Err(error_response(StatusCode::UNAUTHORIZED, "unknown token")),
    /// });
    /// # drop(http);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn gate(
        mut self,
        gate: impl Fn(&hyper::HeaderMap) -> Result<Option<tooltable::Principal>, HttpResponse> + Send + Sync + 'static,
    ) -> Self {
        self.gate = Some(Arc::new(gate));
        self
    }

    /// Makes the server an OAuth 2.1 resource server of `oauth`'s authorization server: every
    /// request but `GET /health`, the protected resource metadata and CORS preflights needs a
    /// bearer token it issued for this server (401 with a challenge otherwise), and the principal
    /// the token names reaches the calls. It replaces the [API key](HttpOptions::api_key), which
    /// travels in the same header: give one or the other. A [gate](Self::gate) still applies
    /// after it and may refuse; the token's principal is the caller.
    pub fn oauth(mut self, oauth: OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Where a host mounts [`HttpService::rest`] (e.g. `/api`): the OpenAPI document's `servers`
    /// says it, so that clients generated from the document find the routes. None by default.
    pub fn rest_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.rest_prefix = prefix.into().trim_end_matches('/').to_owned();
        self
    }

    /// Serves `prefix` (e.g. `/pages`) and every path below it with `handler` instead: pages or
    /// an API of the server's own beside the endpoint and the REST routes, on the same listener.
    /// Its requests pass the Origin and Host checks and the body limit; the API key and the gate
    /// do not apply (the handler authenticates its callers itself, a browser's page usually
    /// having no key to send). A nested prefix comes before a REST route of the same path.
    pub fn nest(mut self, prefix: impl Into<String>, handler: NestedHandler) -> Self {
        self.nested.push((prefix.into().trim_end_matches('/').to_owned(), handler));
        self
    }

    /// The transport as a service, for a host application to mount.
    pub fn service(self) -> HttpService<S> {
        let listen = self.options.listen;
        self.service_at(listen)
    }

    /// The service, whose public URL (unless [`OAuth`] says one) is `http://{listening}`.
    fn service_at(self, listening: SocketAddr) -> HttpService<S> {
        let oauth = self.oauth.map(|oauth| auth::ResourceServer::new(oauth, listening));
        HttpService::new(self.server, self.options, self.gate, oauth, &self.rest_prefix, self.nested)
    }

    /// Serves on `listener` until `shutdown` resolves, then lets in-flight requests finish within
    /// [`HttpOptions::shutdown_grace`].
    pub async fn serve(self, listener: TcpListener, shutdown: impl Future<Output = ()>) -> std::io::Result<()> {
        let grace = self.options.shutdown_grace;
        let listening = listener.local_addr()?;
        listener::serve(self.service_at(listening), listener, grace, shutdown).await
    }
}
