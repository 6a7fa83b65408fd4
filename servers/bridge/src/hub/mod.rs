//! The reference hub: the HTTP API of `docs/servers/bridge.md` over a configuration folder,
//! served by tooltable's REST transport behind a bearer-token check, reloading on file change.

pub mod api;
pub mod capabilities;
pub mod config;
pub mod flows;
pub mod risk;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use hyper::header::{AUTHORIZATION, HeaderValue, WWW_AUTHENTICATE};
use hyper::{HeaderMap, StatusCode};
use tokio::net::TcpListener;
use tooltable::{Server, table};
use tooltable_transports::http::{Http, HttpOptions};
use tooltable_transports::http::{HttpResponse, error_response};

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

/// The hub as a tooltable server: its tools are its routes.
pub fn server(config: Config) -> Result<Server<Config>, tooltable::tool::TableError> {
    Server::builder(config)
        .info("bridge-hub", env!("CARGO_PKG_VERSION"))
        .instructions("A reference hub: capabilities and flows loaded from a configuration folder.")
        .tools(table![
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
    let http = HttpOptions {
        listen: addr,
        max_body_bytes: options.max_body_bytes,
        max_connections: options.max_connections.max(1),
        ..HttpOptions::default()
    };
    let token = options.token.clone();
    let gate = move |headers: &hyper::HeaderMap| refusal(token.as_ref(), headers).map_or(Ok(None), Err);
    let served = Http::new(server).options(http).gate(gate).serve(listener, shutdown_signal()).await;
    reloader.abort();
    if let Some(path) = &options.discovery_file {
        let _ = std::fs::remove_file(path);
    }
    served.map_err(|e| format!("serving failed: {e}"))
}

async fn reload(server: Server<Config>, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        server.state().reload_if_changed();
    }
}

/// The token check every request passes: a 401 naming the scheme when the hub has a token and
/// the request does not carry it.
fn refusal(token: Option<&Token>, headers: &HeaderMap) -> Option<HttpResponse> {
    let token = token?;
    if token.authorizes(headers.get(AUTHORIZATION).map(HeaderValue::as_bytes)) {
        return None;
    }
    let mut r = error_response(StatusCode::UNAUTHORIZED, "this hub needs its bearer token (Authorization: Bearer ...)");
    r.headers_mut().insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    Some(r)
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
