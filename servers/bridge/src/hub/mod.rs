//! The reference hub: the HTTP API of `docs/servers/bridge.md` over a configuration folder,
//! served by tooltable's REST transport behind a bearer-token check, reloading on file change.

pub mod api;
pub mod capabilities;
pub mod config;
pub mod flows;
pub mod risk;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::header::{AUTHORIZATION, HeaderValue, WWW_AUTHENTICATE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tooltable::{Server, table};
use tooltable_transports::http::body::{self, HttpResponse};
use tooltable_transports::http::mcp::registry::Registry;
use tooltable_transports::http::{HttpContext, HttpOptions};
use tooltable_transports::rest::{self, openapi, routes::Routes};

use crate::token::Token;
use config::Config;

/// How the hub runs.
#[derive(Debug, Clone)]
pub struct HubOptions {
    pub config: PathBuf,
    pub listen: SocketAddr,
    pub token: Option<Token>,
    /// How often the configuration folder is checked for changes.
    pub reload_every: Duration,
    /// Where to write the discovery file (`{"addr": "host:port"}`), if anywhere.
    pub discovery_file: Option<PathBuf>,
    pub max_body_bytes: usize,
    pub max_connections: usize,
}

/// How many connections the hub serves at once by default.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;

/// The hub as a tooltable server: its operations are its routes.
pub fn server(config: Config) -> Result<Server<Config>, tooltable::TableError> {
    Server::builder(config)
        .info("bridge-hub", env!("CARGO_PKG_VERSION"))
        .instructions("A reference hub: capabilities and flows loaded from a configuration folder.")
        .operations(table![
            api::list_capabilities,
            api::call_capability,
            api::list_flows,
            api::validate_flow,
            api::run_flow,
            api::try_draft,
        ])
        .build()
}

/// Loads the folder, listens, and serves until SIGINT or SIGTERM.
pub async fn run(options: HubOptions) -> Result<(), String> {
    let config = Config::open(&options.config)?;
    let server = server(config).map_err(|e| e.to_string())?;
    let listener =
        TcpListener::bind(options.listen).await.map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("listening on http://{addr}");
    if let Some(path) = &options.discovery_file {
        let text = serde_json::json!({ "addr": addr.to_string(), "pid": std::process::id() }).to_string();
        std::fs::write(path, text).map_err(|e| format!("cannot write the discovery file {}: {e}", path.display()))?;
    }
    let reloader = tokio::spawn(reload(server.clone(), options.reload_every));
    let http = HttpOptions { listen: addr, max_body_bytes: options.max_body_bytes, ..HttpOptions::default() };
    let descriptors = server.table().descriptors();
    let cx = Arc::new(Gate {
        token: options.token.clone(),
        http: HttpContext {
            openapi: openapi::document(server.info(), server.instructions(), &descriptors).to_string().into(),
            routes: Routes::new(&descriptors),
            sessions: Registry::new(http.session_idle, http.sse_retry_ms),
            server,
            options: http,
        },
    });
    let connections = Arc::new(tokio::sync::Semaphore::new(options.max_connections.max(1)));
    tokio::select! {
        () = accept(listener, cx, connections) => {}
        () = shutdown_signal() => {}
    }
    reloader.abort();
    if let Some(path) = &options.discovery_file {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

async fn reload(server: Server<Config>, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        server.state().reload_if_changed();
    }
}

/// What every request passes through: the token check, then the REST routes.
struct Gate {
    token: Option<Token>,
    http: HttpContext<Config>,
}

async fn accept(listener: TcpListener, gate: Arc<Gate>, connections: Arc<tokio::sync::Semaphore>) {
    loop {
        // Past the bound, connections wait in the listen backlog until one closes.
        let Ok(permit) = Arc::clone(&connections).acquire_owned().await else { return };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                tracing::warn!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let gate = Arc::clone(&gate);
        let service = service_fn(move |req| {
            let gate = Arc::clone(&gate);
            async move { Ok::<_, std::convert::Infallible>(dispatch(&gate, req).await) }
        });
        tokio::spawn(async move {
            if let Err(e) = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await {
                tracing::debug!("connection ended: {e}");
            }
            drop(permit);
        });
    }
}

async fn dispatch(gate: &Gate, req: Request<Incoming>) -> HttpResponse {
    if let Err(refusal) = gate.http.options.access.check(req.headers()) {
        return body::error(StatusCode::FORBIDDEN, refusal.to_string());
    }
    if let Some(token) = &gate.token
        && !token.authorizes(req.headers().get(AUTHORIZATION).map(HeaderValue::as_bytes))
    {
        let mut r =
            body::error(StatusCode::UNAUTHORIZED, "this hub needs its bearer token (Authorization: Bearer ...)");
        r.headers_mut().insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return r;
    }
    if req.uri().path() == "/openapi.json" && req.method() == hyper::Method::GET {
        return body::bytes(StatusCode::OK, "application/json", gate.http.openapi.clone());
    }
    rest::handle(&gate.http, req).await
}

/// SIGINT or SIGTERM (or a failure to watch for them, which ends the hub rather than leaving
/// it unstoppable but by SIGKILL).
async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) {
        (Ok(mut term), Ok(mut int)) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        }
        (Err(e), _) | (_, Err(e)) => tracing::error!("cannot watch for SIGINT and SIGTERM: {e}"),
    }
}
