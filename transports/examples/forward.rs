//! Serves a REST API's OpenAPI 3.1 operations as MCP tools, with the standard commands:
//!
//! ```text
//! cargo run -p tooltable-transports --example forward -- --remote http://127.0.0.1:8080 mcp
//! ```
//!
//! `--bearer-token-env NAME` sends the token held in that environment variable (a token on the
//! command line would show in every process listing).

use std::process::ExitCode;
use std::time::Duration;

use tooltable::Server;
use tooltable_transports::forward::{Options, Remote};

#[derive(clap::Args, Debug)]
struct ForwardArgs {
    /// The base URL of the REST API (`http://host:port`, with a path prefix if it has one).
    /// Required; an option rather than a positional argument so it may come before or after the
    /// command, and not marked required because the standard CLI makes options global.
    #[arg(long)]
    remote: Option<String>,
    /// The path of its OpenAPI document under the base URL.
    #[arg(long, default_value_t = Options::default().document_path)]
    document_path: String,
    /// The path under the base URL where a tooltable server's own tool descriptors are served,
    /// laid over the document's tools (exact schemas, titles and hints).
    #[arg(long)]
    descriptors_path: Option<String>,
    /// The deadline of one forwarded call, in seconds.
    #[arg(long, default_value_t = Options::default().timeout.as_secs())]
    timeout_secs: u64,
    /// The largest answer read from the remote, in bytes.
    #[arg(long, default_value_t = Options::default().max_response_bytes)]
    max_response_bytes: usize,
    /// The environment variable holding a bearer token to send.
    #[arg(long)]
    bearer_token_env: Option<String>,
}

fn build(args: ForwardArgs) -> Result<Server<()>, Box<dyn std::error::Error>> {
    let remote = args.remote.ok_or("--remote URL is required: the base URL of the REST API to forward to")?;
    let mut options = Options::default()
        .document_path(args.document_path)
        .timeout(Duration::from_secs(args.timeout_secs))
        .max_response_bytes(args.max_response_bytes);
    if let Some(path) = args.descriptors_path {
        options = options.descriptors_path(path);
    }
    if let Some(name) = args.bearer_token_env {
        let token = std::env::var(&name).map_err(|e| format!("--bearer-token-env {name}: {e}"))?;
        options = options.bearer_token(token);
    }
    // The document is read once, before the command runs; calls make their own connections.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let remote = runtime.block_on(Remote::connect(&remote, options))?;
    for skipped in remote.skipped() {
        eprintln!("warning: {} is not served: {}", skipped.operation, skipped.reason);
    }
    let server = Server::builder(()).info("forward", env!("CARGO_PKG_VERSION")).build()?;
    remote.install(&server)?;
    Ok(server)
}

fn main() -> ExitCode {
    use tooltable_transports::cli::{Hooks, run};
    run(tooltable_transports::package!(), |args, _| build(args), Hooks::default())
}
