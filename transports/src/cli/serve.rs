//! `serve`: Streamable HTTP, REST and OpenAPI on one port, until SIGINT or SIGTERM.

use std::process::ExitCode;

use tooltable::Server;

use super::HttpHook;
use crate::http::{Http, HttpOptions, OAuth};

pub(super) async fn serve_http<S: Send + Sync + 'static>(
    server: Server<S>,
    options: HttpOptions,
    oauth: Option<OAuth>,
    hook: Option<HttpHook<S>>,
) -> ExitCode {
    let listener = match tokio::net::TcpListener::bind(options.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot listen on {}: {e}", options.listen);
            return ExitCode::FAILURE;
        }
    };
    match listener.local_addr() {
        Ok(addr) => {
            // One write, so a host reading stderr never sees half the line.
            use std::io::Write;
            let line = listening_line(addr, server.config().startup_note.as_deref());
            let _ = std::io::stderr().write_all(line.as_bytes());
        }
        Err(e) => eprintln!("listening (address unknown: {e})"),
    }
    let mut http = Http::new(server.clone()).options(options);
    if let Some(oauth) = oauth {
        http = http.oauth(oauth);
    }
    if let Some(hook) = hook {
        http = hook(&server, http);
    }
    match http.serve(listener, shutdown_signal()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: http: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What `serve` prints once it listens: `listening on MCP_URL (REST BASE_URL, OpenAPI URL)`, then
/// `; NOTE` when the server has a startup note. The word after `listening on ` is the Streamable
/// HTTP endpoint a host connects to.
fn listening_line(addr: std::net::SocketAddr, note: Option<&str>) -> String {
    let note = note.map(|n| format!("; {n}")).unwrap_or_default();
    format!("listening on http://{addr}/mcp (REST http://{addr}/, OpenAPI http://{addr}/openapi.json){note}\n")
}

/// SIGINT or SIGTERM.
async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listening_line_starts_with_the_mcp_endpoint() {
        let line = listening_line("127.0.0.1:8765".parse().unwrap(), None);
        assert_eq!(
            line,
            "listening on http://127.0.0.1:8765/mcp (REST http://127.0.0.1:8765/, OpenAPI http://127.0.0.1:8765/openapi.json)\n"
        );
        let endpoint = line.strip_prefix("listening on ").and_then(|rest| rest.split_whitespace().next());
        assert_eq!(endpoint, Some("http://127.0.0.1:8765/mcp"));
        let noted = listening_line("127.0.0.1:8765".parse().unwrap(), Some("kept in memory"));
        assert!(noted.ends_with(" OpenAPI http://127.0.0.1:8765/openapi.json); kept in memory\n"), "{noted}");
        let endpoint = noted.strip_prefix("listening on ").and_then(|rest| rest.split_whitespace().next());
        assert_eq!(endpoint, Some("http://127.0.0.1:8765/mcp"));
    }
}
