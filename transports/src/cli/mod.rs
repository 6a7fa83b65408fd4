//! The command line every server gets: `mcp` (stdio), `serve` (HTTP), `call TOOL 'JSON'`, `tools`,
//! `openapi`. Diagnostics go to stderr, filtered by `RUST_LOG`: by default warnings, and the
//! call log ([`CallLog`]), one line per call, which the command line
//! adds to the server, outermost, whenever the filter lets its lines through.

mod args;
mod serve;

use std::process::ExitCode;

use clap::{Args, FromArgMatches};
use serde_json::Value;
use tokio::runtime::Builder;
use tooltable::Server;
use tooltable::context::Transport;
use tooltable::layer::{CALLS_TARGET, CallLog};
use tooltable::tool::Output;
use tooltable::transport::RequestContext;

use crate::forward;
use crate::http::Http;
use crate::stdio::{StdioOptions, serve_stdio};
pub use args::RemoteTarget;
use args::{Cli, Command, NoOptions, command, shared_state_key};
use serve::serve_http;

/// The server's crate, as `--version` and `--help` show it: [`package!`](crate::package) fills it
/// in from the calling crate's `Cargo.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Package {
    /// The crate's name, shown by `--help` when the binary's own name cannot be read.
    pub name: &'static str,
    /// Its version, for `--version`.
    pub version: &'static str,
    /// Its description, the first line of `--help`.
    pub description: &'static str,
}

/// The calling crate's name, version and description, for [`cli::main`](crate::cli::main).
#[macro_export]
macro_rules! package {
    () => {
        $crate::cli::Package {
            name: env!("CARGO_PKG_NAME"),
            version: env!("CARGO_PKG_VERSION"),
            description: env!("CARGO_PKG_DESCRIPTION"),
        }
    };
}

/// Exit codes beyond 0 (success) and 1 (a tool error).
const EXIT_USAGE: u8 = 2;

type BuildError = Box<dyn std::error::Error>;

/// Runs the standard CLI for a server with no options of its own:
/// `tooltable_transports::cli::main(tooltable_transports::package!(), server)`.
pub fn main<S, E>(package: Package, build: impl FnOnce() -> Result<Server<S>, E>) -> ExitCode
where
    S: Send + Sync + 'static,
    E: Into<BuildError>,
{
    run(package, |_: NoOptions, _| build().map_err(Into::into), Hooks::default())
}

/// What a server adds to the standard CLI beyond its build (see [`run`]): `start`, called with
/// the server once the command line has set it up and before it serves; `http`, which may add to
/// what `serve` serves (pages of its own with [`Http::nest`], say).
///
/// ```
/// use std::sync::Arc;
/// use tooltable_transports::cli::Hooks;
///
/// let hooks: Hooks<()> = Hooks::default()
///     .start(|_server| Ok(()))
///     .http(|_server, http| http.rest_prefix("/"));
/// # drop(hooks);
/// ```
pub struct Hooks<S: Send + Sync + 'static> {
    start: Option<StartHook<S>>,
    http: Option<HttpHook<S>>,
}

/// What [`Hooks::start`] keeps.
type StartHook<S> = Box<dyn FnOnce(&Server<S>) -> Result<(), BuildError>>;
/// What [`Hooks::http`] keeps.
type HttpHook<S> = Box<dyn FnOnce(&Server<S>, Http<S>) -> Http<S>>;

impl<S: Send + Sync + 'static> Default for Hooks<S> {
    fn default() -> Self {
        Hooks { start: None, http: None }
    }
}

impl<S: Send + Sync + 'static> std::fmt::Debug for Hooks<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks").field("start", &self.start.is_some()).field("http", &self.http.is_some()).finish()
    }
}

impl<S: Send + Sync + 'static> Hooks<S> {
    /// Called with the server once the command line has set it up (the shared state key, remote
    /// mode) and before it serves: the place to start what holds on to the server, such as the
    /// [proxies](crate::proxy::Proxy) of a gateway, which the setup could no longer change the
    /// server under.
    pub fn start(mut self, start: impl FnOnce(&Server<S>) -> Result<(), BuildError> + 'static) -> Self {
        self.start = Some(Box::new(start));
        self
    }

    /// Given the server and the HTTP transport `serve` is about to run, returns the transport to
    /// run: with routes of the server's own [nested](Http::nest) in it, say.
    pub fn http(mut self, http: impl FnOnce(&Server<S>, Http<S>) -> Http<S> + 'static) -> Self {
        self.http = Some(Box::new(http));
        self
    }
}

/// The standard CLI for a server whose own options `A` are parsed first and given to `build`,
/// with every hook (of which [`main`] uses none): `build` is also given
/// `mcp --url`'s [`RemoteTarget`] (`None` for the other commands, and for `mcp` without a URL),
/// so a server whose remote mode differs (more tools, other instructions, a hook on the
/// forwarded calls) builds itself for it; and [`Hooks`] says what else the server adds.
pub fn run<A, S>(
    package: Package,
    build: impl FnOnce(A, Option<&mut RemoteTarget>) -> Result<Server<S>, BuildError>,
    hooks: Hooks<S>,
) -> ExitCode
where
    A: Args,
    S: Send + Sync + 'static,
{
    init_tracing();
    let cli = match command::<A>(package, std::env::args_os()).and_then(|m| Cli::<A>::from_arg_matches(&m)) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { 0 });
        }
    };
    let mut target = match &cli.command {
        Command::Mcp { remote, .. } => match remote.target(package) {
            Ok(target) => target,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(EXIT_USAGE);
            }
        },
        _ => None,
    };
    let mut server = match build(cli.app, target.as_mut()) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if let Err(e) = shared_state_key(&mut server) {
        eprintln!("error: {e}");
        return ExitCode::from(EXIT_USAGE);
    }
    // Outermost, so that it sees the other layers' refusals and time; not added at all when
    // `RUST_LOG` leaves its lines out.
    if tracing::enabled!(target: CALLS_TARGET, tracing::Level::INFO) && !server.set_outer_layer(CallLog) {
        tracing::warn!("no call log: the server has an outer layer of its own");
    }
    let Hooks { mut start, http } = hooks;
    let mut started = |server: &Server<S>| match start.take().map_or(Ok(()), |start| start(server)) {
        Ok(()) => Ok(()),
        Err(e) => {
            eprintln!("error: {e}");
            Err(ExitCode::from(EXIT_USAGE))
        }
    };
    // Remote mode replaces handlers, which only a server nothing else holds allows: first.
    if !matches!(cli.command, Command::Mcp { .. })
        && let Err(code) = started(&server)
    {
        return code;
    }
    match cli.command {
        // stdin is read on this thread, the one the client started, and most calls are answered
        // there; the runtime's one worker runs the calls that wait.
        Command::Mcp { max_line_bytes, max_unread_output, remote: _ } => {
            let forwarded = target.map(|t| forward::mirror(&mut server, &t.url, t.options)).transpose();
            let mirror = match forwarded {
                Ok(mirror) => mirror,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(EXIT_USAGE);
                }
            };
            if let Err(code) = started(&server) {
                return code;
            }
            with_runtime(Builder::new_multi_thread().worker_threads(1), |rt| {
                if let Some(mirror) = mirror {
                    rt.spawn(mirror.follow_updates(server.clone()));
                }
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
            let (oauth, options) = match args.oauth(package).and_then(|oauth| Ok((oauth, args.options(package)?))) {
                Ok(settings) => settings,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(EXIT_USAGE);
                }
            };
            with_runtime(&mut Builder::new_multi_thread(), |rt| rt.block_on(serve_http(server, options, oauth, http)))
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

async fn call<S: Send + Sync + 'static>(server: &Server<S>, tool: &str, arguments: &str) -> ExitCode {
    let args: Value = match serde_json::from_str(arguments) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: the arguments are not JSON: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match server.call_tool(server.cx(&RequestContext::new(Transport::InProcess)), tool, Some(args)).await {
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

/// Prints to stdout; a closed pipe (`| head`) ends the output quietly instead of panicking.
fn print_json(v: &Value) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{}", serde_json::to_string_pretty(v).unwrap_or_default());
}

/// Diagnostics go to stderr, filtered by `RUST_LOG` (by default warnings and the call log).
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("warn,{CALLS_TARGET}=info")));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
