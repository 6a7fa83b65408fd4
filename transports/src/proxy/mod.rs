//! Another MCP server's tools served as this server's own: a proxy connects to an upstream run as
//! a command (stdio) or reached at a URL (Streamable HTTP), in either era, and serves each of its
//! tools as a dynamic tool named `<name>_<tool>`. Its list is followed (`list_changed`), so a tool
//! the upstream adds or removes is added or removed here. A call is forwarded with its progress,
//! logs and cancellation passed through, and the upstream's questions (sampling, elicitation,
//! roots) asked of this server's own client through the call's `Cx`; the upstream's results and
//! errors come back as it gave them.
//!
//! An upstream that dies (its process exits, its connection or subscription breaks) or stops
//! answering (a probe every [`Options::probe_every`] gets no answer in time) is connected to
//! again, backing off from [`Options::first_retry`] to [`Options::last_retry`]; meanwhile its
//! tools stay listed and their calls are internal tool errors naming it and the reason, and so is
//! a call the upstream does not answer within [`Options::call_timeout`]: the body
//! `{"error", "upstream", "reason"}`, `upstream` the proxy's name and `reason` one of `unavailable`
//! (not connected, reconnecting), `unreachable`, `closed` (the connection ended during the call),
//! `timeout` and `protocol` (an answer that is no MCP result). Once it is back its listing is
//! read again.
//!
//! Each proxy's connection runs on a thread of its own, so [`Proxy::start`] may be called before
//! any runtime exists (in the function a server's `main` gives the standard command line):
//!
//! ```no_run
//! use std::time::Duration;
//! use tooltable::Server;
//! use tooltable_transports::client::Target;
//! use tooltable_transports::proxy::{Options, Proxy};
//!
//! # fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder(()).info("gateway", "1.0.0").build()?;
//! let conformance = Proxy::start(&server, "conf", Target::command("conformance-server", ["mcp"]), Options::default())?;
//! conformance.wait_ready(Duration::from_secs(10));
//! // `conf_add_numbers` and the conformance server's other tools are now the server's.
//! # Ok(()) }
//! ```

mod failure;
mod relay;
mod supervise;
mod tools;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::Duration;

use serde_json::json;
use tokio::sync::Notify;
use tooltable::Server;

use crate::client::{self, Client, Target};
use tooltable::context::Era;

/// How a proxy connects and forwards. Defaults: the client's defaults with the capabilities a
/// gateway relays (sampling, form and URL elicitation, roots) and every log level, 60 s per
/// call, reconnection from 500 ms doubling to 5 s, a probe every 10 s answered within 5 s.
#[derive(Debug, Clone)]
pub struct Options {
    /// How the upstream is connected to. Unless it names a client of its own, the proxy gives
    /// the server's name and version.
    pub client: client::Options,
    /// How long a forwarded call may wait for the upstream (the time the gateway's client takes
    /// to answer the upstream's questions does not count).
    pub call_timeout: Duration,
    /// The first pause before connecting again, doubled after each failure up to `last_retry`.
    pub first_retry: Duration,
    /// The longest pause before connecting again.
    pub last_retry: Duration,
    /// How often a connected upstream is probed (`ping`, or `server/discover` under 2026-07-28).
    pub probe_every: Duration,
    /// How long a probe has to be answered before the upstream counts as gone.
    pub probe_timeout: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            client: client::Options::default()
                .capabilities(json!({ "sampling": {}, "elicitation": { "form": {}, "url": {} }, "roots": {} }))
                .log_level("debug"),
            call_timeout: Duration::from_secs(60),
            first_retry: Duration::from_millis(500),
            last_retry: Duration::from_secs(5),
            probe_every: Duration::from_secs(10),
            probe_timeout: Duration::from_secs(5),
        }
    }
}

impl Options {
    /// Sets [`Options::client`].
    pub fn client(mut self, client: client::Options) -> Self {
        self.client = client;
        self
    }
    /// Sets [`Options::call_timeout`].
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }
    /// Sets the pauses before connecting again: `first`, doubling up to `last` (at least `first`).
    pub fn retry(mut self, first: Duration, last: Duration) -> Self {
        self.first_retry = first;
        self.last_retry = last.max(first);
        self
    }
    /// Probes a connected upstream every `every`, giving it `timeout` to answer.
    pub fn probe(mut self, every: Duration, timeout: Duration) -> Self {
        self.probe_every = every;
        self.probe_timeout = timeout;
        self
    }
}

/// Where a proxy stands with its upstream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The first connection is being made.
    Connecting,
    /// Connected, serving the upstream's tools.
    Up {
        /// The era the connection speaks.
        era: Era,
        /// How many tools are served.
        tools: usize,
    },
    /// Not connected; it is being connected to again.
    Down {
        /// Why: the connection's failure, for a person.
        reason: String,
    },
    /// [`Proxy::stop`] was called; its tools are gone.
    Stopped,
}

/// Why a proxy could not start.
///
/// ```
/// use tooltable::Server;
/// use tooltable_transports::client::Target;
/// use tooltable_transports::proxy::{Options, Proxy, ProxyError};
///
/// let server = Server::builder(()).info("gateway", "1.0.0").build()?;
/// let refused = Proxy::start(&server, "no spaces", Target::url("http://127.0.0.1:9/mcp"), Options::default());
/// assert!(matches!(refused, Err(ProxyError::InvalidName(name)) if name == "no spaces"));
/// # Ok::<(), tooltable::tool::TableError>(())
/// ```
#[derive(Debug)]
pub enum ProxyError {
    /// The name is no tool-name prefix (`[A-Za-z0-9_.-]`, 1 to 64 characters).
    InvalidName(String),
    /// The thread of its connection could not be started.
    Thread(std::io::Error),
}

impl std::fmt::Display for ProxyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProxyError::InvalidName(name) => {
                write!(f, "{name:?} cannot prefix tool names: use 1 to 64 characters of [A-Za-z0-9_.-]")
            }
            ProxyError::Thread(e) => write!(f, "the proxy's thread could not be started: {e}"),
        }
    }
}

impl std::error::Error for ProxyError {}

/// A running proxy: a handle to watch and stop it. Dropping it leaves the proxy running, for as
/// long as the server does.
#[derive(Debug)]
pub struct Proxy {
    shared: Arc<Shared>,
}

/// What the tools' handlers and the connection's thread share.
pub(crate) struct Shared {
    /// The prefix of the tools, and how failures name the upstream.
    pub name: String,
    /// The command or URL, as failures name it.
    pub target: String,
    pub options: Options,
    connection: RwLock<Result<Arc<Client>, String>>,
    status: Mutex<Status>,
    changed: Condvar,
    /// A call failed in a way that suggests the upstream is gone: probe it now.
    suspect: Notify,
    stopping: AtomicBool,
    stop: Notify,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").field("name", &self.name).field("target", &self.target).finish_non_exhaustive()
    }
}

impl Proxy {
    /// Starts serving the tools of the server at `target` on `server`, named `<name>_<tool>`
    /// (give each proxy of a server its own name: a tool of the same name replaces another's).
    /// Returns at once; [`Proxy::wait_ready`] waits for the first connection.
    pub fn start<S: Send + Sync + 'static>(
        server: &Server<S>,
        name: &str,
        target: Target,
        mut options: Options,
    ) -> Result<Proxy, ProxyError> {
        let valid = (1..=64).contains(&name.len())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
        if !valid {
            return Err(ProxyError::InvalidName(name.to_owned()));
        }
        if options.client.name == client::Options::default().name {
            options.client = options.client.client_info(&server.info().name, &server.info().version);
        }
        let shared = Arc::new(Shared {
            name: name.to_owned(),
            target: target.to_string(),
            options,
            connection: RwLock::new(Err("the first connection is being made".into())),
            status: Mutex::new(Status::Connecting),
            changed: Condvar::new(),
            suspect: Notify::new(),
            stopping: AtomicBool::new(false),
            stop: Notify::new(),
        });
        supervise::spawn(server.downgrade(), Arc::clone(&shared), target).map_err(ProxyError::Thread)?;
        Ok(Proxy { shared })
    }

    /// The prefix of its tools.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// Where the proxy stands with its upstream now.
    pub fn status(&self) -> Status {
        self.shared.status()
    }

    /// Blocks the thread until the first connection is made or has failed, at most `timeout`;
    /// the status then.
    pub fn wait_ready(&self, timeout: Duration) -> Status {
        let status = self.shared.status.lock().unwrap_or_else(|p| p.into_inner());
        let (status, _) = self
            .shared
            .changed
            .wait_timeout_while(status, timeout, |s| *s == Status::Connecting)
            .unwrap_or_else(|p| p.into_inner());
        status.clone()
    }

    /// Stops the proxy: its tools are removed and its connection ends (the process is stopped).
    pub fn stop(&self) {
        self.shared.stopping.store(true, Ordering::Release);
        self.shared.stop.notify_one();
    }
}

impl Shared {
    /// The connection, or why there is none.
    pub(crate) fn client(&self) -> Result<Arc<Client>, String> {
        self.connection.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(crate) fn status(&self) -> Status {
        self.status.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set(&self, connection: Result<Arc<Client>, String>, status: Status) {
        *self.connection.write().unwrap_or_else(|p| p.into_inner()) = connection;
        *self.status.lock().unwrap_or_else(|p| p.into_inner()) = status;
        self.changed.notify_all();
    }

    /// Asks for a probe now.
    pub(crate) fn suspect(&self) {
        self.suspect.notify_one();
    }

    fn stopping(&self) -> bool {
        self.stopping.load(Ordering::Acquire)
    }
}
