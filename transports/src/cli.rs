//! The command line every server gets: `mcp` (stdio), `serve` (HTTP), `call TOOL 'JSON'`, `tools`,
//! `openapi`.

use std::process::ExitCode;

use clap::{Args, FromArgMatches, Parser, Subcommand};
use serde_json::Value;
use tokio::runtime::Builder;
use tooltable::{CallOutput, Cx, Server};

use crate::http::guard::AccessPolicy;
use crate::http::{HttpOptions, serve};
use crate::stdio::{StdioOptions, serve_stdio};

/// A server's own command-line options, flattened beside the standard commands.
#[derive(Args, Debug, Clone, Default)]
pub struct NoOptions {}

#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli<A: Args> {
    #[command(flatten)]
    app: A,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve MCP over stdin and stdout (newline-delimited JSON-RPC).
    Mcp {
        /// The longest message line accepted, in bytes.
        #[arg(long, default_value_t = StdioOptions::default().max_line_bytes)]
        max_line_bytes: usize,
        /// Bytes of answers the client has not read yet past which stdin is no longer read.
        #[arg(long, default_value_t = StdioOptions::default().max_unread_output)]
        max_unread_output: usize,
    },
    /// Call one tool in process and print its result as JSON (exit 1 on a tool error).
    Call {
        /// The tool's name.
        tool: String,
        /// The arguments, a JSON object.
        #[arg(default_value = "{}")]
        arguments: String,
    },
    /// Print every tool's descriptor as JSON.
    Tools,
    /// Print the OpenAPI 3.1 document of the REST routes.
    Openapi,
    /// Serve Streamable HTTP at /mcp, with the REST routes and /openapi.json, on one port.
    Serve(ServeArgs),
}

#[derive(Args, Debug)]
struct ServeArgs {
    /// The address to listen on (loopback by default; port 0 picks a free one).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: std::net::SocketAddr,
    /// An origin allowed besides localhost ones (repeatable; `*` allows any).
    #[arg(long = "allow-origin")]
    allow_origins: Vec<String>,
    /// A Host name allowed besides localhost ones (repeatable; `*` allows any).
    #[arg(long = "allow-host")]
    allow_hosts: Vec<String>,
    /// Seconds of inactivity after which a session expires.
    #[arg(long, default_value_t = HttpOptions::default().session_idle.as_secs())]
    session_idle_secs: u64,
    /// The largest request body accepted, in bytes.
    #[arg(long, default_value_t = HttpOptions::default().max_body_bytes)]
    max_body_bytes: usize,
}

impl ServeArgs {
    fn options(self) -> HttpOptions {
        HttpOptions {
            listen: self.listen,
            access: AccessPolicy { allowed_origins: self.allow_origins, allowed_hosts: self.allow_hosts },
            session_idle: std::time::Duration::from_secs(self.session_idle_secs),
            max_body_bytes: self.max_body_bytes,
            ..HttpOptions::default()
        }
    }
}

/// Exit codes beyond 0 (success) and 1 (a tool error).
const EXIT_USAGE: u8 = 2;

type BuildError = Box<dyn std::error::Error>;

/// Runs the standard CLI for a server with no options of its own.
pub fn main<S, E>(build: impl FnOnce() -> Result<Server<S>, E>) -> ExitCode
where
    S: Send + Sync + 'static,
    E: Into<BuildError>,
{
    main_with(|_: NoOptions| build().map_err(Into::into))
}

/// Runs the standard CLI for a server whose options `A` are parsed first and given to `build`.
pub fn main_with<A, S>(build: impl FnOnce(A) -> Result<Server<S>, BuildError>) -> ExitCode
where
    A: Args,
    S: Send + Sync + 'static,
{
    init_tracing();
    let bin = std::env::args().next().and_then(|a| a.rsplit('/').next().map(|s| s.to_owned()));
    // A server's own options are global, so `server mcp --root DIR` and `server --root DIR mcp`
    // both work.
    let mut command = <Cli<A> as clap::CommandFactory>::command().mut_args(|arg| arg.global(true));
    if let Some(bin) = bin {
        command = command.name(bin);
    }
    let cli = match command.try_get_matches().and_then(|m| Cli::<A>::from_arg_matches(&m)) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { 0 });
        }
    };
    let server = match build(cli.app) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match cli.command {
        // stdin is read on this thread, the one the client started, and most calls are answered
        // there; the runtime's one worker runs the calls that wait.
        Command::Mcp { max_line_bytes, max_unread_output } => {
            with_runtime(Builder::new_multi_thread().worker_threads(1), |rt| {
                let options = StdioOptions { max_line_bytes, max_unread_output, ..StdioOptions::default() };
                match serve_stdio(&server, &options, rt.handle()) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("error: stdio: {e}");
                        ExitCode::FAILURE
                    }
                }
            })
        }
        Command::Serve(args) => {
            with_runtime(&mut Builder::new_multi_thread(), |rt| rt.block_on(serve_http(server, args.options())))
        }
        Command::Call { tool, arguments } => {
            with_runtime(&mut Builder::new_current_thread(), |rt| rt.block_on(call(&server, &tool, &arguments)))
        }
        Command::Openapi => {
            let descriptors = server.table().descriptors();
            print_json(&crate::rest::openapi::document(server.info(), server.instructions(), &descriptors));
            ExitCode::SUCCESS
        }
        Command::Tools => {
            let tools: Vec<Value> = server.table().descriptors().iter().map(|d| d.to_mcp()).collect();
            print_json(&Value::Array(tools));
            ExitCode::SUCCESS
        }
    }
}

fn with_runtime(builder: &mut Builder, run: impl FnOnce(&tokio::runtime::Runtime) -> ExitCode) -> ExitCode {
    match builder.enable_all().build() {
        Ok(runtime) => run(&runtime),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_http<S: Send + Sync + 'static>(server: Server<S>, options: HttpOptions) -> ExitCode {
    let listener = match tokio::net::TcpListener::bind(options.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot listen on {}: {e}", options.listen);
            return ExitCode::FAILURE;
        }
    };
    match listener.local_addr() {
        Ok(addr) => eprintln!("listening on http://{addr}"),
        Err(e) => eprintln!("listening (address unknown: {e})"),
    }
    match serve(server, listener, options, shutdown_signal()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: http: {e}");
            ExitCode::FAILURE
        }
    }
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

async fn call<S: Send + Sync + 'static>(server: &Server<S>, tool: &str, arguments: &str) -> ExitCode {
    let args: Value = match serde_json::from_str(arguments) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: the arguments are not JSON: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match server.call_tool(Cx::detached(server), tool, Some(args)).await {
        Ok(Ok(CallOutput::Json(v))) => {
            print_json(&v);
            ExitCode::SUCCESS
        }
        Ok(Ok(CallOutput::Content(c))) => {
            print_json(&serde_json::to_value(c).unwrap_or_default());
            ExitCode::SUCCESS
        }
        Ok(Err(failure)) => {
            print_json(&failure.body);
            eprintln!("error: {tool} failed ({:?})", failure.kind);
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {}", e.message);
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// Prints to stdout; a closed pipe (`| head`) ends the output quietly instead of panicking.
fn print_json(v: &Value) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{}", serde_json::to_string_pretty(v).unwrap_or_default());
}

/// Diagnostics go to stderr, filtered by `RUST_LOG` (warnings by default).
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
