//! `rmcp-http`: the `add_numbers` tool served with rmcp's Streamable HTTP server
//! (`rmcp::transport::streamable_http_server::StreamableHttpService`, feature
//! `transport-streamable-http-server`), for `bench/http.sh`.
//!
//! Usage: `rmcp-http [json|session] [ADDR]` (defaults `json`, `127.0.0.1:0`); prints
//! `listening on http://ADDR` on stderr. Any path is served (rmcp's service does not route), so
//! the bench POSTs to `/mcp` as for tooltable.
//!
//! Modes (rmcp 3.11's `StreamableHttpServerConfig`):
//! * `json`: `legacy_session_mode = false`, `json_response = true`, with `NeverSessionManager`.
//!   rmcp only answers `application/json` in this stateless mode (with sessions every response is
//!   an SSE stream); each POST is served on its own: a fresh handler from the factory, a one-shot
//!   transport, a spawned task. No `Mcp-Session-Id` is issued; one sent is ignored. This is rmcp's
//!   fastest request/response mode and answers with the same content type as tooltable.
//! * `session`: rmcp's default config (`legacy_session_mode = true`, `json_response = false`) with
//!   `LocalSessionManager`: `initialize` opens a session (`Mcp-Session-Id`), every `tools/call`
//!   is routed to that session's worker and answered as `text/event-stream` (one priming event,
//!   then the response). The closest to tooltable's semantics (stateful sessions).
//!
//! Both: `sse_keep_alive` and `allowed_hosts` at rmcp's defaults (loopback hosts allowed), the
//! `ToolRouter` built once and shared (`Arc`) by every handler the factory makes, a
//! multi-threaded tokio runtime (as tooltable's `serve`), `hyper::server::conn::http1` with
//! `TCP_NODELAY` on every connection (as tooltable's `serve` and `http-floor`).

use std::sync::Arc;

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::{
    Json, ServerHandler,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    tool, tool_handler, tool_router,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
        session::{SessionManager, local::LocalSessionManager, never::NeverSessionManager},
    },
};

use rmcp_server::{AddNumbers, Sum};

#[derive(Clone)]
pub struct Bench {
    tool_router: Arc<ToolRouter<Self>>,
}

#[tool_router]
impl Bench {
    /// Adds two numbers; its result is an object, so the tool declares an outputSchema.
    #[tool(annotations(title = "Add numbers", read_only_hint = true, idempotent_hint = true))]
    async fn add_numbers(&self, Parameters(args): Parameters<AddNumbers>) -> Result<Json<Sum>, String> {
        Ok(Json(Sum { sum: args.a + args.b }))
    }
}

#[tool_handler(router = self.tool_router, name = "rmcp-http", version = "0.1.0")]
impl ServerHandler for Bench {}

async fn accept_loop<M: SessionManager>(
    listener: tokio::net::TcpListener,
    service: StreamableHttpService<Bench, M>,
) -> std::io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "json".to_owned());
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let router = Arc::new(Bench::tool_router());
    let factory = move || Ok(Bench { tool_router: Arc::clone(&router) });
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("listening on http://{}", listener.local_addr()?);
    match mode.as_str() {
        "json" => {
            let config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(false)
                .with_json_response(true);
            let service = StreamableHttpService::new(factory, Arc::new(NeverSessionManager::default()), config);
            accept_loop(listener, service).await?;
        }
        "session" => {
            let config = StreamableHttpServerConfig::default();
            let service = StreamableHttpService::new(factory, Arc::new(LocalSessionManager::default()), config);
            accept_loop(listener, service).await?;
        }
        other => return Err(format!("unknown mode {other:?}: json or session").into()),
    }
    Ok(())
}
