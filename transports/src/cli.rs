//! The command line every server gets: `mcp` (stdio), `call TOOL 'JSON'`, `tools`.

use std::process::ExitCode;

use clap::{Args, FromArgMatches, Parser, Subcommand};
use serde_json::Value;
use tooltable::{Cx, Output, Server};

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
    let mut command = <Cli<A> as clap::CommandFactory>::command();
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
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(run(server, cli.command))
}

async fn run<S: Send + Sync + 'static>(server: Server<S>, command: Command) -> ExitCode {
    match command {
        Command::Mcp { max_line_bytes } => {
            let options = StdioOptions { max_line_bytes, ..StdioOptions::default() };
            match serve_stdio(&server, &options).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: stdio: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Call { tool, arguments } => call(&server, &tool, &arguments).await,
        Command::Tools => {
            let tools: Vec<Value> = server.table().descriptors().iter().map(|d| d.to_mcp()).collect();
            print_json(&Value::Array(tools));
            ExitCode::SUCCESS
        }
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
        Ok(Ok(Output::Json(v))) => {
            print_json(&v);
            ExitCode::SUCCESS
        }
        Ok(Ok(Output::Content(c))) => {
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

fn print_json(v: &Value) {
    println!("{}", serde_json::to_string_pretty(v).unwrap_or_default());
}

/// Diagnostics go to stderr, filtered by `RUST_LOG` (warnings by default).
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
