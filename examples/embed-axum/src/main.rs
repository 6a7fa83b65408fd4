//! `embed-axum --listen ADDR`: an axum application of its own (`GET /`) with the notes server
//! mounted in it, the way a team adds MCP to the web service it already has: the Streamable
//! HTTP endpoint at `/mcp`, the REST routes and `openapi.json` under `/api`, behind the
//! application's own middleware.

use std::net::SocketAddr;
use std::process::ExitCode;

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use axum::routing::get;
use clap::Parser;
use tooltable_transports::http::{ClientAddr, Http, HttpOptions};

/// The host application's command line.
#[derive(Parser)]
#[command(version, about)]
struct Args {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
}

/// What the host application answers at its root.
const HOME: &str = "embed-axum: the host application";

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let server = match notes_example::server() {
        Ok(server) => server,
        Err(e) => return fail(format!("cannot build the notes server: {e}")),
    };
    let listener = match tokio::net::TcpListener::bind(args.listen).await {
        Ok(listener) => listener,
        Err(e) => return fail(format!("cannot listen on {}: {e}", args.listen)),
    };
    let addr = match listener.local_addr() {
        Ok(addr) => addr,
        Err(e) => return fail(format!("cannot read the listening address: {e}")),
    };
    // The guards `serve` has (Origin and Host checks, limits, timeouts) apply here too.
    let options = HttpOptions { listen: addr, ..HttpOptions::default() };
    let mcp = Http::new(server).options(options).rest_prefix("/api").service();
    let app = Router::new()
        .route("/", get(|| async { HOME }))
        .nest_service("/mcp", mcp.mcp())
        .nest_service("/api", mcp.rest())
        // The session caps count per client: tell the service who the client is.
        .layer(axum::middleware::map_request(client_addr));
    eprintln!("listening on http://{addr}/mcp (REST http://{addr}/api/, OpenAPI http://{addr}/api/openapi.json)");
    let shutdown = {
        let mcp = mcp.clone();
        async move {
            let _ = tokio::signal::ctrl_c().await;
            // The event streams that never end by themselves would hold axum's graceful shutdown.
            mcp.shutdown();
        }
    };
    let served = axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown)
        .await;
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(format!("serving failed: {e}")),
    }
}

async fn client_addr(ConnectInfo(peer): ConnectInfo<SocketAddr>, mut request: Request) -> Request {
    request.extensions_mut().insert(ClientAddr(peer.ip()));
    request
}

fn fail(message: String) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}
