//! The server: its state, its table, its resources, prompts and completions, its settings, and the
//! live sessions that broadcasts reach.

mod builder;
mod calls;
mod mount;
mod sessions;
mod side;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use serde_json::Value;
use serde_json::value::RawValue;

use crate::api::context::{Cx, RequestContext, ServerSide};
use crate::api::descriptor::{DynamicHandler, DynamicTool};
use crate::api::error::{Error, ErrorKind};
use crate::api::layer::Layer;
use crate::api::output::Output;
use crate::api::prompts::{CompletionHandler, RegisteredPrompt};
use crate::api::resources::{ReadHandler, StaticResource, TemplateResource, match_template};
use crate::api::rpc::RpcError;
use crate::api::table_error::TableError;
use crate::api::tool::BoxFuture;
use crate::engine::stateless::request_state::StateKey;
use crate::engine::table::{Arguments, Entry, Table};
use crate::engine::tasks::Tasks;

pub use builder::{Config, ServerBuilder};
use sessions::LiveSessions;

/// The name and version a server gives in `initialize`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ServerInfo {
    /// The server's name (the package's, say).
    pub name: String,
    /// Its version.
    pub version: String,
}

pub(crate) struct ServerInner<S> {
    info: ServerInfo,
    instructions: Option<String>,
    state: S,
    table: Table<S>,
    resources: Vec<StaticResource<S>>,
    templates: Vec<TemplateResource<S>>,
    prompts: Vec<RegisteredPrompt<S>>,
    completion: Option<CompletionHandler<S>>,
    config: Config,
    tasks: Tasks,
    /// Around every tool call, the first outermost.
    layers: Vec<Box<dyn Layer<S>>>,
    /// Around those, once set (the standard command line's call log, say).
    outer_layer: OnceLock<Box<dyn Layer<S>>>,
    sessions: Arc<LiveSessions<S>>,
    next_session: AtomicU64,
    /// Told of every resource a session subscribes to (a forwarding server follows it upstream).
    subscription_observer: Option<SubscriptionObserver>,
    /// The `_meta` of every 2026-07-28 result, written once.
    result_meta: Box<RawValue>,
}

/// What [`Server::observe_subscriptions`] calls with the URI of each subscription a session makes;
/// `resources/subscribe` is answered once its future is done.
pub type SubscriptionObserver = Arc<dyn Fn(String) -> BoxFuture<'static, ()> + Send + Sync>;

/// A server: cheap to clone, shared by every session and transport.
pub struct Server<S>(Arc<ServerInner<S>>);

impl<S> Clone for Server<S> {
    fn clone(&self) -> Self {
        Server(Arc::clone(&self.0))
    }
}

/// A handle on a [`Server`] that does not keep it alive: for a callback that the server's own
/// state holds (a store's watcher telling subscribers of changes made elsewhere), which a
/// `Server` would keep alive forever.
pub struct WeakServer<S>(Weak<ServerInner<S>>);

impl<S> Server<S> {
    /// A handle that does not keep the server alive.
    pub fn downgrade(&self) -> WeakServer<S> {
        WeakServer(Arc::downgrade(&self.0))
    }
}

impl<S> WeakServer<S> {
    /// The server, while anything else holds it.
    pub fn upgrade(&self) -> Option<Server<S>> {
        self.0.upgrade().map(Server)
    }
}

impl<S> std::fmt::Debug for WeakServer<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WeakServer").field("alive", &(self.0.strong_count() > 0)).finish()
    }
}

impl<S: Send + Sync + 'static> Server<S> {
    /// The name and version given in `initialize`.
    pub fn info(&self) -> &ServerInfo {
        &self.0.info
    }
    /// The `_meta` of every 2026-07-28 result: the server's identity.
    pub(crate) fn result_meta(&self) -> &RawValue {
        &self.0.result_meta
    }
    /// The instructions given in `initialize`.
    pub fn instructions(&self) -> Option<&str> {
        self.0.instructions.as_deref()
    }
    /// The server's state.
    pub fn state(&self) -> &S {
        &self.0.state
    }
    /// The server's settings.
    pub fn config(&self) -> &Config {
        &self.0.config
    }
    /// The table of tools.
    pub fn table(&self) -> &Table<S> {
        &self.0.table
    }

    /// A context for a call outside any session (REST, the `call` command, tests): progress and
    /// logs go nowhere, the client cannot be asked; it tells the transport and principal of
    /// `request`.
    pub fn cx(&self, request: &RequestContext) -> Cx<S> {
        Cx::new(self.side(), request.clone(), None)
    }

    /// Adds (or replaces) a tool at run time and tells every session its list changed.
    pub fn add_tool(&self, tool: DynamicTool<S>) -> Result<(), TableError> {
        self.0.add_tool(tool)
    }

    /// Removes a tool added at run time; tells every session when there was one.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.0.remove_tool(name)
    }

    /// Calls `observer` with the URI of every subscription a session makes (`resources/subscribe`,
    /// answered once the observer's future is done, or a `subscriptions/listen` watching it, which
    /// does not wait), while nothing else holds the server (right after it is built); false once
    /// it is shared. How a server whose state lives elsewhere subscribes
    /// there too, and passes the updates on with [`Server::resource_updated`].
    pub fn observe_subscriptions(&mut self, observer: SubscriptionObserver) -> bool {
        Arc::get_mut(&mut self.0).map(|inner| inner.subscription_observer = Some(observer)).is_some()
    }

    /// Tells every session subscribed to `uri` that the resource changed.
    pub fn resource_updated(&self, uri: &str) {
        self.0.resource_updated(uri);
    }

    /// How many `subscriptions/listen` requests (revision 2026-07-28) are open on the server's
    /// live sessions, each a stream its client holds open. A listen ends with its session, which
    /// a transport ends when the client goes or the server shuts down.
    pub fn open_listens(&self) -> usize {
        self.0.sessions.open_listens()
    }

    /// Replaces the key that signs multi-round `requestState`s, while nothing else holds the
    /// server (right after it is built); false once it is shared.
    pub fn set_state_key(&mut self, key: StateKey) -> bool {
        Arc::get_mut(&mut self.0).map(|inner| inner.config.state_key = key).is_some()
    }

    /// Serves the tool `name` of `table!` with `handler` instead of its own function, keeping its
    /// descriptor and its place in the listing (how a tool is forwarded to another process that
    /// serves it), while nothing else holds the server (right after it is built).
    pub fn replace_handler(&mut self, name: &str, handler: DynamicHandler<S>) -> Result<(), ReplaceError> {
        let inner = Arc::get_mut(&mut self.0).ok_or(ReplaceError::Shared)?;
        if inner.table.replace_handler(name, handler) { Ok(()) } else { Err(ReplaceError::NoSuchTool(name.to_owned())) }
    }

    /// Puts a layer around every other one (the first to see a call), once: false when the
    /// server has one already. How the standard command line adds its call log to a server built
    /// elsewhere; calls already read (or running) do not pass it.
    pub fn set_outer_layer(&self, layer: impl Layer<S>) -> bool {
        self.0.outer_layer.set(Box::new(layer)).is_ok()
    }

    /// Runs a tool through the server's layers, then its limits: validated arguments, its
    /// handler, its outcome. Unknown tools and non-object arguments are protocol faults; a schema
    /// violation, a refusal and a time limit are tool failures.
    pub async fn call_tool(
        &self,
        cx: Cx<S>,
        name: &str,
        args: Option<Value>,
    ) -> Result<Result<Output, Error>, RpcError> {
        let tool = self.tool(name)?;
        Ok(self.run_call(&tool, cx, args.map(Arguments::Value), false)?.await.into_outcome().into_result())
    }

    /// Calls a tool outside any session (tests, scripts): its JSON result (content blocks as
    /// their JSON), or the failure's body. A protocol fault (an unknown tool, arguments that are
    /// no object) comes back as a bad-request failure.
    pub async fn call(&self, name: &str, args: Value) -> Result<Value, Error> {
        let cx = self.cx(&RequestContext::new(crate::api::context::Transport::InProcess));
        match self.call_tool(cx, name, Some(args)).await {
            Ok(Ok(Output::Json(value))) => Ok(value),
            Ok(Ok(Output::Content(content))) => Ok(serde_json::to_value(content).unwrap_or(Value::Null)),
            Ok(Err(failure)) => Err(failure),
            Err(e) => Err(Error::new(ErrorKind::BadRequest, e.message)),
        }
    }

    /// The server as a call's context sees it.
    pub(crate) fn side(&self) -> Arc<dyn ServerSide<S>> {
        self.0.clone()
    }

    pub(crate) fn tool(&self, name: &str) -> Result<Arc<Entry<S>>, RpcError> {
        self.0.tool(name)
    }

    /// The tool a call of `name` with `args` runs: found by its place when the arguments were
    /// read into its argument type.
    pub(crate) fn tool_for(&self, name: &str, args: Option<&Arguments>) -> Result<Arc<Entry<S>>, RpcError> {
        self.0.table.get_for(name, args).ok_or_else(|| unknown_tool(name))
    }

    /// The reader of `uri`, and the template variables it matched: a fixed resource first, then
    /// the templates in order.
    pub(crate) fn find_resource(&self, uri: &str) -> Option<(ReadHandler<S>, BTreeMap<String, String>)> {
        if let Some(r) = self.0.resources.iter().find(|r| r.resource.uri == uri) {
            return Some((Arc::clone(&r.read), BTreeMap::new()));
        }
        self.0
            .templates
            .iter()
            .find_map(|t| match_template(&t.template.uri_template, uri).map(|p| (Arc::clone(&t.read), p)))
    }

    /// The observer's future for a new subscription, if the server has an observer.
    pub(crate) fn subscribed(&self, uri: &str) -> Option<BoxFuture<'static, ()>> {
        self.0.subscription_observer.as_ref().map(|observe| observe(uri.to_owned()))
    }

    pub(crate) fn resources(&self) -> &[StaticResource<S>] {
        &self.0.resources
    }
    pub(crate) fn templates(&self) -> &[TemplateResource<S>] {
        &self.0.templates
    }
    pub(crate) fn has_resources(&self) -> bool {
        !self.0.resources.is_empty() || !self.0.templates.is_empty()
    }
    pub(crate) fn prompts(&self) -> &[RegisteredPrompt<S>] {
        &self.0.prompts
    }
    pub(crate) fn completion(&self) -> Option<&CompletionHandler<S>> {
        self.0.completion.as_ref()
    }
    pub(crate) fn has_completion(&self) -> bool {
        self.0.completion.is_some()
    }
    pub(crate) fn tasks(&self) -> &Tasks {
        &self.0.tasks
    }

    pub(crate) fn next_session_key(&self) -> u64 {
        self.0.next_session.fetch_add(1, Ordering::Relaxed)
    }

    pub(crate) fn register(&self, key: u64, session: &Arc<crate::engine::session::SessionCore<S>>) {
        self.0.sessions.register(key, session);
    }
}

impl<S> Server<S> {
    pub(crate) fn unregister(&self, key: u64) {
        self.0.sessions.unregister(key);
    }
}

impl<S: Send + Sync + 'static> ServerInner<S> {
    fn tool(&self, name: &str) -> Result<Arc<Entry<S>>, RpcError> {
        self.table.get(name).ok_or_else(|| unknown_tool(name))
    }

    fn add_tool(&self, tool: DynamicTool<S>) -> Result<(), TableError> {
        self.table.insert(tool)?;
        self.sessions.broadcast(|s| s.tools_changed());
        Ok(())
    }

    fn remove_tool(&self, name: &str) -> bool {
        let removed = self.table.remove(name);
        if removed {
            self.sessions.broadcast(|s| s.tools_changed());
        }
        removed
    }

    fn resource_updated(&self, uri: &str) {
        self.sessions.broadcast(|s| s.resource_updated(uri));
    }
}

/// Why [`Server::replace_handler`] could not replace a handler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplaceError {
    /// The server is already shared (served, or cloned); handlers are replaced before that.
    Shared,
    /// No tool of the table has that name (a dynamic tool is replaced with `add_tool`).
    NoSuchTool(String),
}

impl std::fmt::Display for ReplaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplaceError::Shared => f.write_str("the server is already shared; its handlers can no longer change"),
            ReplaceError::NoSuchTool(name) => write!(f, "no tool of the table is named {name:?}"),
        }
    }
}

impl std::error::Error for ReplaceError {}

impl<S> std::fmt::Debug for Server<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.0;
        f.debug_struct("Server")
            .field("info", &s.info)
            .field("tools", &s.table.len())
            .field("resources", &s.resources.len())
            .field("templates", &s.templates.len())
            .field("prompts", &s.prompts.len())
            .field("completion", &s.completion.is_some())
            .field("layers", &(s.layers.len() + usize::from(s.outer_layer.get().is_some())))
            .field("config", &s.config)
            .finish_non_exhaustive()
    }
}

fn unknown_tool(name: &str) -> RpcError {
    RpcError::invalid_params(format!("Unknown tool: {name}"))
}
