//! `bridge mcp`: the MCP bridge to a hub, over stdio. `bridge hub`: the reference hub.

mod bridge;
mod hub;
mod protocol;
mod token;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use tokio::runtime::Builder;
use tooltable_transports::stdio::{StdioOptions, serve_stdio};

use bridge::client::{DEFAULT_DEADLINE, DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_IN_FLIGHT, HubClient, Limits};
use bridge::discovery::Target;
use token::Token;

#[derive(Parser, Debug)]
#[command(version, about = "A stdio MCP bridge to a hub's capabilities and flows, and a reference hub")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve MCP over stdin and stdout: one tool per capability the hub has loaded, and the flow tools.
    Mcp(McpArgs),
    /// Run the reference hub over a configuration folder (capabilities/*.yaml, flows/*.yaml).
    Hub(HubArgs),
}

#[derive(clap::Args, Debug)]
struct McpArgs {
    /// Talk to the hub at this host:port only, ignoring daemon.json.
    #[arg(long)]
    addr: Option<String>,
    /// The hub's token (also read from JEVALAN_TOKEN). Never printed.
    #[arg(long, env = token::TOKEN_ENV, hide_env_values = true)]
    token: Option<String>,
    /// Let jevalan_try_draft use the live and record transports, which call real backends.
    #[arg(long)]
    allow_live: bool,
    /// Milliseconds every call to the hub may take, connecting included.
    #[arg(long, default_value_t = DEFAULT_DEADLINE.as_millis() as u64)]
    deadline_ms: u64,
    /// Milliseconds between checks of the hub's capability revision.
    #[arg(long, default_value_t = bridge::sync::DEFAULT_POLL.as_millis() as u64)]
    poll_ms: u64,
    /// The largest answer read from the hub, in bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_ANSWER_BYTES)]
    max_answer_bytes: usize,
    /// How many calls to the hub may be in flight at once (more wait their turn).
    #[arg(long, default_value_t = DEFAULT_MAX_IN_FLIGHT)]
    max_in_flight: usize,
}

#[derive(clap::Args, Debug)]
struct HubArgs {
    /// The configuration folder.
    #[arg(long)]
    config: PathBuf,
    /// The address to listen on (port 0 picks a free one).
    #[arg(long, default_value = bridge::discovery::DEFAULT_ADDR)]
    listen: SocketAddr,
    /// The bearer token callers must send (also read from JEVALAN_TOKEN). Never printed.
    #[arg(long, env = token::TOKEN_ENV, hide_env_values = true)]
    token: Option<String>,
    /// Milliseconds between checks of the configuration folder for changes.
    #[arg(long, default_value_t = 500)]
    reload_ms: u64,
    /// Write the discovery file here once listening (removed on SIGINT or SIGTERM).
    #[arg(long)]
    discovery_file: Option<PathBuf>,
    /// The largest request body accepted, in bytes.
    #[arg(long, default_value_t = 16 * 1024 * 1024)]
    max_body_bytes: usize,
    /// How many connections may be open at once (more wait to be accepted).
    #[arg(long, default_value_t = hub::DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
}

const EXIT_USAGE: u8 = 2;
/// How long the bridge waits for the hub's capability list before it serves stdio.
const STARTUP_WAIT: Duration = Duration::from_secs(2);

fn main() -> ExitCode {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,bridge=info"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { 0 });
        }
    };
    match cli.command {
        Command::Mcp(args) => mcp(args),
        Command::Hub(args) => hub(args),
    }
}

fn mcp(args: McpArgs) -> ExitCode {
    let token = args.token.and_then(Token::new);
    let deadline = Duration::from_millis(args.deadline_ms.max(1));
    let limits = Limits { deadline, max_answer_bytes: args.max_answer_bytes, max_in_flight: args.max_in_flight };
    let client = HubClient::new(Target::new(args.addr), token, limits);
    let server = match bridge::server(bridge::Bridge::new(client, args.allow_live)) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    // stdin is read on this thread; the one worker runs the forwarded calls and the follower.
    let runtime = match Builder::new_multi_thread().worker_threads(1).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The first tools/list should show the capabilities, but a hub that does not answer must not
    // hold up the client's initialize: past this wait the follower serves them when they come.
    let first_listing = bridge::sync::sync(&server);
    let _ = runtime.block_on(async { tokio::time::timeout(STARTUP_WAIT.min(deadline), first_listing).await });
    runtime.spawn(bridge::sync::follow(server.clone(), Duration::from_millis(args.poll_ms.max(10))));
    match serve_stdio(&server, &StdioOptions::default(), runtime.handle()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: stdio: {e}");
            ExitCode::FAILURE
        }
    }
}

fn hub(args: HubArgs) -> ExitCode {
    let options = hub::HubOptions {
        config: args.config,
        listen: args.listen,
        token: args.token.and_then(Token::new),
        reload_every: Duration::from_millis(args.reload_ms.max(10)),
        discovery_file: args.discovery_file,
        max_body_bytes: args.max_body_bytes,
        max_connections: args.max_connections,
    };
    let runtime = match Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(hub::run(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
