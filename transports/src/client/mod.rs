//! An MCP client: connects to a server run as a command (stdio) or reached at a URL (Streamable
//! HTTP), in either era of the protocol, and sends it requests.
//!
//! [`Client::connect`] finds out the server's era the way the specification says: it sends
//! `server/discover` with the 2026-07-28 `_meta` and, when the server does not know it, falls
//! back to the `initialize` handshake of the revisions up to 2025-11-25 ([`Options::era`] can
//! choose one instead). Then every request is an [`Exchange`]: its progress, its logs, the
//! server's questions (requests to the client under the handshake revisions; `input_required`
//! rounds and tasks waiting for input under 2026-07-28) and its result arrive as [`Event`]s, the
//! same in both eras; it has a deadline, and dropping it cancels the request. [`Client::changes`]
//! follows list changes and resource updates: on the session's own channel (the GET stream over
//! HTTP) under a handshake, with `subscriptions/listen` under 2026-07-28. A request of the server
//! that belongs to no request in flight goes to [`Options::on_request`], a notification to
//! [`Options::on_notification`].
//!
//! ```no_run
//! use serde_json::json;
//! use tooltable_transports::client::{Client, Options, Target};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::connect(Target::command("conformance-server", ["mcp"]), Options::default()).await?;
//! let sum = client.request("tools/call", json!({ "name": "add_numbers", "arguments": { "a": 1, "b": 2 } })).await?;
//! assert_eq!(sum["structuredContent"], json!({ "sum": 3 }));
//! client.close().await;
//! # Ok(()) }
//! ```

mod changes;
mod connect;
mod error;
mod exchange;
mod http;
mod peer;
pub(crate) mod sse;
mod stdio;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::task::JoinHandle;
use tooltable::transport::BoxFuture;
use tooltable::transport::jsonrpc::RpcError;

pub use changes::{Changes, Watch};
pub use error::ClientError;
pub use exchange::{Call, Event, Exchange, Input, Question};

use crate::forward::client::Token;
use peer::{Link, Peer};

/// The server to connect to.
///
/// ```
/// use tooltable_transports::client::Target;
///
/// let command = Target::command("conformance-server", ["mcp"]);
/// assert_eq!(command.to_string(), "`conformance-server mcp`", "as messages name it");
/// assert_eq!(Target::url("http://127.0.0.1:8080/mcp").to_string(), "http://127.0.0.1:8080/mcp");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A program run as a child process, spoken to on its stdin and stdout.
    Command {
        /// The program, found on `PATH` unless it is a path.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A Streamable HTTP endpoint, `http://host:port/path`.
    Url(String),
}

impl Target {
    /// `program args..`, started by the client.
    pub fn command<I: IntoIterator<Item = A>, A: Into<String>>(program: impl Into<String>, args: I) -> Target {
        Target::Command { program: program.into(), args: args.into_iter().map(Into::into).collect() }
    }

    /// A Streamable HTTP endpoint.
    pub fn url(url: impl Into<String>) -> Target {
        Target::Url(url.into())
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Command { program, args } => {
                write!(f, "`{program}")?;
                args.iter().try_for_each(|a| write!(f, " {a}"))?;
                f.write_str("`")
            }
            Target::Url(url) => f.write_str(url),
        }
    }
}

// The two eras of the protocol: the one type the server's calls are told of too.
use tooltable::context::Era;

/// Answers a request of the server's that belongs to no request in flight: its method and params
/// in, the result (or a JSON-RPC error) out.
pub(crate) type RequestHandler =
    Arc<dyn Fn(String, Value) -> BoxFuture<'static, Result<Value, RpcError>> + Send + Sync>;

/// Told of every notification that belongs to no request in flight.
pub(crate) type NotificationHandler = Arc<dyn Fn(Notification) + Send + Sync>;

/// How the client connects and what it says of itself. Defaults: the name `tooltable-client`,
/// the era the server speaks, no capabilities, 30 s per request, 10 s to connect, 16 MiB per
/// message, no token, no log level, no handlers.
///
/// ```
/// use std::time::Duration;
/// use tooltable::context::Era;
/// use tooltable_transports::client::Options;
///
/// let options = Options::default()
///     .client_info("my-agent", "0.3.0")
///     .era(Era::Handshake)
///     .timeout(Duration::from_secs(5))
///     .on_notification(|notification| eprintln!("{}", notification.method));
/// assert_eq!((options.name.as_str(), options.era), ("my-agent", Some(Era::Handshake)));
/// ```
#[derive(Clone)]
pub struct Options {
    /// The name the client gives (`clientInfo`).
    pub name: String,
    /// The version the client gives (`clientInfo`).
    pub version: String,
    /// The era to speak; `None` finds out which the server speaks (2026-07-28 when it can).
    pub era: Option<Era>,
    /// The client capabilities: declared in `initialize`, or in each 2026-07-28 request unless
    /// the request gives its own ([`Call::capabilities`]).
    pub capabilities: Value,
    /// How long a request may wait for its answer unless it says otherwise ([`Call::timeout`]).
    pub timeout: Duration,
    /// How long connecting may take: starting or reaching the server, finding out its era, the
    /// handshake.
    pub connect_timeout: Duration,
    /// The largest message read (a longer stdio line is skipped; a larger HTTP answer fails its
    /// request).
    pub max_message_bytes: usize,
    /// Sent as `Authorization: Bearer ...` to a Streamable HTTP server; set with
    /// [`Options::bearer_token`], never printed.
    pub(crate) token: Option<Token>,
    /// The log level asked for: `logging/setLevel` after the handshake, or in each 2026-07-28
    /// request's `_meta`; `None` asks for no logs.
    pub log_level: Option<String>,
    /// Answers a request of the server that belongs to no request in flight (`roots/list` after
    /// the handshake, say); without one such requests are answered "method not found". Set with
    /// [`Options::on_request`].
    pub(crate) on_request: Option<RequestHandler>,
    /// Told of a notification that belongs to no request in flight; set with
    /// [`Options::on_notification`].
    pub(crate) on_notification: Option<NotificationHandler>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            name: "tooltable-client".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            era: None,
            capabilities: json!({}),
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            max_message_bytes: 16 * 1024 * 1024,
            token: None,
            log_level: None,
            on_request: None,
            on_notification: None,
        }
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("era", &self.era)
            .field("capabilities", &self.capabilities)
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("token", &self.token)
            .field("log_level", &self.log_level)
            .finish_non_exhaustive()
    }
}

impl Options {
    /// Sets the name and version the client gives.
    pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.name = name.into();
        self.version = version.into();
        self
    }
    /// Speaks `era` rather than finding out which the server speaks.
    pub fn era(mut self, era: Era) -> Self {
        self.era = Some(era);
        self
    }
    /// Sets [`Options::capabilities`].
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }
    /// Sets [`Options::timeout`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
    /// Sets [`Options::connect_timeout`].
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }
    /// Sends `token` as `Authorization: Bearer <token>` to a Streamable HTTP server.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(Token::new(token));
        self
    }
    /// Asks for the server's logs from `level` (`debug` to `emergency`) up.
    pub fn log_level(mut self, level: impl Into<String>) -> Self {
        self.log_level = Some(level.into());
        self
    }
    /// Answers each request of the server's that belongs to no request in flight with
    /// `handler(method, params)`: the result, or a JSON-RPC error.
    pub fn on_request<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(String, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, RpcError>> + Send + 'static,
    {
        self.on_request = Some(Arc::new(move |method, params| Box::pin(handler(method, params))));
        self
    }
    /// Calls `handler` with each notification that belongs to no request in flight.
    pub fn on_notification(mut self, handler: impl Fn(Notification) + Send + Sync + 'static) -> Self {
        self.on_notification = Some(Arc::new(handler));
        self
    }
}

/// A notification of the server's.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// Its method (`notifications/tools/list_changed`, say).
    pub method: String,
    /// Its params (`null` when it has none).
    pub params: Value,
}

/// The [`Event::Progress`] of `notifications/progress` params; `None` without a number.
fn progress(params: &Value) -> Option<Event> {
    Some(Event::Progress {
        progress: params.get("progress")?.as_f64()?,
        total: params.get("total").and_then(Value::as_f64),
        message: params.get("message").and_then(Value::as_str).map(str::to_owned),
    })
}

/// The [`Event::Log`] of `notifications/message` params.
fn log(params: &Value) -> Event {
    Event::Log {
        level: params.get("level").and_then(Value::as_str).unwrap_or("info").to_owned(),
        logger: params.get("logger").and_then(Value::as_str).map(str::to_owned),
        data: params.get("data").cloned().unwrap_or(Value::Null),
    }
}

/// A task of the connection's, stopped when dropped.
#[derive(Debug)]
pub(crate) struct Task(JoinHandle<()>);

impl Task {
    pub(crate) fn spawn(runtime: &tokio::runtime::Handle, work: impl Future<Output = ()> + Send + 'static) -> Task {
        Task(runtime.spawn(work))
    }
}

impl Drop for Task {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The most pages a listing follows.
const MAX_PAGES: usize = 100;

/// A connection to one MCP server. Dropping it ends the connection (the process is killed);
/// [`Client::close`] ends it gracefully.
#[derive(Debug)]
pub struct Client {
    peer: Arc<Peer>,
}

impl Client {
    /// Starts or reaches the server and settles on an era with it, within
    /// [`Options::connect_timeout`]. Its tasks run on the current tokio runtime.
    pub async fn connect(target: Target, options: Options) -> Result<Client, ClientError> {
        connect::connect(target, options).await.map(|peer| Client { peer })
    }

    /// The era the connection speaks.
    pub fn era(&self) -> Era {
        self.negotiated().era
    }

    /// The revision the connection speaks.
    pub fn protocol_version(&self) -> &str {
        &self.negotiated().version
    }

    /// The `initialize` or `server/discover` result.
    pub fn server(&self) -> &Value {
        &self.negotiated().server
    }

    /// The server's `name` and `version`.
    pub fn server_info(&self) -> &Value {
        let server = self.server();
        server
            .get("serverInfo")
            .or_else(|| server.pointer("/_meta/io.modelcontextprotocol~1serverInfo"))
            .unwrap_or(&Value::Null)
    }

    /// The capabilities the server declared.
    pub fn server_capabilities(&self) -> &Value {
        self.server().get("capabilities").unwrap_or(&Value::Null)
    }

    /// The instructions the server gave for using it, if any.
    pub fn instructions(&self) -> Option<&str> {
        self.server().get("instructions").and_then(Value::as_str)
    }

    fn negotiated(&self) -> &peer::Negotiated {
        // Set before a `Client` exists.
        self.peer.negotiated.get().expect("a client is connected")
    }

    /// The server, as messages name it (the command or the URL).
    pub fn label(&self) -> String {
        self.peer.label()
    }

    /// Sends a request; its events come from the exchange returned.
    pub fn start(&self, method: &str, params: Value, call: Call) -> Exchange {
        Exchange::start(&self.peer, method, params, call)
    }

    /// Sends a request and waits for its result. Progress and logs are not heard; a question of
    /// the server's goes to [`Options::on_request`].
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        let mut exchange = self.start(method, params, Call::default());
        loop {
            match exchange.next().await {
                Event::Done(outcome) => return outcome,
                Event::Input(input) => {
                    let mut answers = serde_json::Map::new();
                    let mut refused = None;
                    for q in &input.questions {
                        let answer = match &self.peer.options.on_request {
                            Some(handler) => handler(q.method.clone(), q.params.clone()).await,
                            None => Err(RpcError::method_not_found(&q.method)),
                        };
                        match answer {
                            Ok(answer) => {
                                answers.insert(q.key.clone(), answer);
                            }
                            Err(e) => refused = Some(e),
                        }
                    }
                    exchange.answer(input, refused.map_or(Ok(answers), Err));
                }
                Event::Progress { .. } | Event::Log { .. } | Event::Notification(_) => {}
            }
        }
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) {
        self.peer.post(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Every item of a listing (`tools/list` with key `tools`, ...), page after page, at most 100
    /// pages.
    pub async fn list(&self, method: &str, key: &str) -> Result<Vec<Value>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<Value> = None;
        for _ in 0..MAX_PAGES {
            let params = match cursor.take() {
                Some(cursor) => json!({ "cursor": cursor }),
                None => json!({}),
            };
            let page = self.request(method, params).await?;
            match page.get(key).and_then(Value::as_array) {
                Some(page_items) => items.extend(page_items.iter().cloned()),
                None => return Err(ClientError::Protocol(format!("the {method} result has no `{key}` list"))),
            }
            match page.get("nextCursor") {
                Some(next) if !next.is_null() => cursor = Some(next.clone()),
                _ => return Ok(items),
            }
        }
        Err(ClientError::Protocol(format!("{method} went on for more than {MAX_PAGES} pages")))
    }

    /// Every tool. Over Streamable HTTP a tool whose `x-mcp-header` marks break the
    /// specification's rules is left out, with a warning, as the specification requires.
    pub async fn list_tools(&self) -> Result<Vec<Value>, ClientError> {
        let mut tools = self.list("tools/list", "tools").await?;
        if matches!(self.peer.link, Link::Http(_)) {
            tools.retain(|tool| match tool.get("inputSchema").map(http::param_headers) {
                Some(Err(why)) => {
                    tracing::warn!("{}: the tool {} is left out: {why}", self.label(), tool["name"]);
                    false
                }
                _ => true,
            });
        }
        Ok(tools)
    }

    /// Follows the changes `watch` names, until the connection ends.
    pub async fn changes(&self, watch: Watch) -> Result<Changes, ClientError> {
        Changes::open(self, watch).await
    }

    /// Why the connection ended, once it has.
    pub fn closed_reason(&self) -> Option<String> {
        self.peer.closed_reason()
    }

    /// Waits until the connection ends; why it did.
    pub async fn closed(&self) -> String {
        let mut closed = self.peer.watch_closed();
        loop {
            if let Some(reason) = closed.borrow_and_update().clone() {
                return reason;
            }
            if closed.changed().await.is_err() {
                return "the client was dropped".into();
            }
        }
    }

    /// Ends the connection: the HTTP session is deleted; the process's stdin is closed, then it
    /// is stopped (SIGTERM, then SIGKILL) if it does not exit.
    pub async fn close(&self) {
        if let Link::Http(endpoint) = &self.peer.link {
            endpoint.end_session().await;
        }
        self.peer.close("the client closed the connection");
        if let Link::Stdio(process) = &self.peer.link {
            process.stop().await;
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.peer.close("the client was dropped");
        if let Link::Stdio(process) = &self.peer.link {
            process.kill();
        }
    }
}
