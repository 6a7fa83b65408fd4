//! The server: its state, its table, its resources, prompts and completions, its settings, and the
//! live sessions that broadcasts reach.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use serde_json::Value;

use crate::content::ResourceContents;
use crate::context::Cx;
use crate::jsonrpc::{RpcError, code};
use crate::operation::Operation;
use crate::outcome::{CallOutput, CallResult, ErrorKind, ToolFailure};
use crate::prompts::{
    CompletionHandler, CompletionRequest, Prompt, PromptArgs, PromptResult, RegisteredPrompt, completion_handler,
    prompt_handler,
};
use crate::request_state::StateKey;
use crate::resources::{
    ReadHandler, Resource, ResourceRequest, ResourceTemplate, StaticResource, TemplateResource, match_template,
    read_handler,
};
use crate::session::{CacheHint, SessionCore};
use crate::table::{DynamicHandler, DynamicTool, Entry, Table, TableError};
use crate::tasks::{TaskStore, TaskWatchers, Tasks};

/// The name and version a server gives in `initialize`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
}

/// Settings with defaults a server may change.
#[derive(Debug, Clone)]
pub struct Config {
    /// Items per page of `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`.
    pub page_size: usize,
    /// The result-size guard: the most characters of pretty-printed JSON a tool result may have.
    pub result_limit: usize,
    /// The cache hint of cacheable results under revision 2026-07-28 (lists, reads, discovery).
    pub cache: CacheHint,
    /// Signs the `requestState` of multi-round requests; instances behind one load balancer
    /// share it (default: a key of this process's own).
    pub state_key: StateKey,
    /// Tools that always run in this process, even when the others are forwarded to a remote
    /// instance of the server (the standard CLI's `mcp --url`): those that need none of its state.
    pub local_tools: Vec<String>,
    /// What `serve` adds to its startup line after the addresses: a fact an operator must see at
    /// once, such as where the server keeps its data.
    pub startup_note: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            page_size: 100,
            result_limit: 50_000,
            cache: CacheHint::default(),
            state_key: StateKey::random(),
            local_tools: Vec::new(),
            startup_note: None,
        }
    }
}

pub(crate) struct ServerInner<S> {
    pub info: ServerInfo,
    pub instructions: Option<String>,
    pub state: S,
    pub table: Table<S>,
    pub resources: Vec<StaticResource<S>>,
    pub templates: Vec<TemplateResource<S>>,
    pub prompts: Vec<RegisteredPrompt<S>>,
    pub completion: Option<CompletionHandler<S>>,
    pub config: Config,
    pub tasks: Tasks,
    sessions: Arc<LiveSessions<S>>,
    next_session: AtomicU64,
    /// Told of every resource a session subscribes to (a forwarding server follows it upstream).
    subscription_observer: Option<SubscriptionObserver>,
}

/// What [`Server::observe_subscriptions`] calls with the URI of each subscription a session makes;
/// `resources/subscribe` is answered once its future is done.
pub type SubscriptionObserver = Arc<dyn Fn(String) -> crate::operation::BoxFuture<'static, ()> + Send + Sync>;

/// A server: cheap to clone, shared by every session and transport.
pub struct Server<S>(pub(crate) Arc<ServerInner<S>>);

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

/// Builds a [`Server`]: `Server::builder(state).info(name, version).operations(table![..]).build()`.
pub struct ServerBuilder<S> {
    info: ServerInfo,
    instructions: Option<String>,
    state: S,
    operations: Vec<Box<dyn Operation<S>>>,
    resources: Vec<StaticResource<S>>,
    templates: Vec<TemplateResource<S>>,
    prompts: Vec<RegisteredPrompt<S>>,
    completion: Option<CompletionHandler<S>>,
    config: Config,
    tasks: Tasks,
}

impl<S: Send + Sync + 'static> Server<S> {
    pub fn builder(state: S) -> ServerBuilder<S> {
        ServerBuilder {
            info: ServerInfo { name: "tooltable".into(), version: env!("CARGO_PKG_VERSION").into() },
            instructions: None,
            state,
            operations: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            completion: None,
            config: Config::default(),
            tasks: Tasks::default(),
        }
    }

    pub fn info(&self) -> &ServerInfo {
        &self.0.info
    }
    /// The instructions given in `initialize`.
    pub fn instructions(&self) -> Option<&str> {
        self.0.instructions.as_deref()
    }
    pub fn state(&self) -> &S {
        &self.0.state
    }
    pub fn config(&self) -> &Config {
        &self.0.config
    }
    pub fn table(&self) -> &Table<S> {
        &self.0.table
    }

    /// Adds (or replaces) a tool at run time and tells every session its list changed.
    pub fn add_tool(&self, tool: DynamicTool<S>) -> Result<(), TableError> {
        self.0.table.insert(tool)?;
        self.broadcast(|s| s.tools_changed());
        Ok(())
    }

    /// Removes a tool added at run time; tells every session when there was one.
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = self.0.table.remove(name);
        if removed {
            self.broadcast(|s| s.tools_changed());
        }
        removed
    }

    /// Calls `observer` with the URI of every subscription a session makes (`resources/subscribe`,
    /// answered once the observer's future is done, or a `subscriptions/listen` watching it, which
    /// does not wait), while nothing else holds the server (right after it is built); false once
    /// it is shared. How a server whose state lives elsewhere subscribes
    /// there too, and passes the updates on with [`Server::resource_updated`].
    pub fn observe_subscriptions(&mut self, observer: SubscriptionObserver) -> bool {
        Arc::get_mut(&mut self.0).map(|inner| inner.subscription_observer = Some(observer)).is_some()
    }

    /// The observer's future for a new subscription, if the server has an observer.
    pub(crate) fn subscribed(&self, uri: &str) -> Option<crate::operation::BoxFuture<'static, ()>> {
        self.0.subscription_observer.as_ref().map(|observe| observe(uri.to_owned()))
    }

    /// Tells every session subscribed to `uri` that the resource changed.
    pub fn resource_updated(&self, uri: &str) {
        self.broadcast(|s| s.resource_updated(uri));
    }

    /// Replaces the key that signs multi-round `requestState`s, while nothing else holds the
    /// server (right after it is built); false once it is shared.
    pub fn set_state_key(&mut self, key: StateKey) -> bool {
        std::sync::Arc::get_mut(&mut self.0).map(|inner| inner.config.state_key = key).is_some()
    }

    /// Serves the operation `name` with `handler` instead of its own function, keeping its
    /// descriptor and its place in the listing (how a tool is forwarded to another process that
    /// serves it), while nothing else holds the server (right after it is built).
    pub fn replace_handler(&mut self, name: &str, handler: DynamicHandler<S>) -> Result<(), ReplaceError> {
        let inner = Arc::get_mut(&mut self.0).ok_or(ReplaceError::Shared)?;
        if inner.table.replace_handler(name, handler) {
            Ok(())
        } else {
            Err(ReplaceError::NoSuchOperation(name.to_owned()))
        }
    }

    /// Validates arguments and runs a tool. Unknown tools and non-object arguments are protocol
    /// faults; a schema violation is a tool failure.
    pub async fn call_tool(&self, cx: Cx<S>, name: &str, args: Option<Value>) -> Result<CallResult, RpcError> {
        self.tool(name)?.call(cx, args).await
    }

    pub(crate) fn tool(&self, name: &str) -> Result<Arc<Entry<S>>, RpcError> {
        self.0.table.get(name).ok_or_else(|| RpcError::invalid_params(format!("Unknown tool: {name}")))
    }

    /// Calls a tool outside any session (tests, scripts): its JSON result (content blocks as
    /// their JSON), or the failure's body. A protocol fault (an unknown tool, arguments that are
    /// no object) comes back as a bad-request failure.
    pub async fn call(&self, name: &str, args: Value) -> Result<Value, ToolFailure> {
        match self.call_tool(Cx::detached(self), name, Some(args)).await {
            Ok(Ok(CallOutput::Json(value))) => Ok(value),
            Ok(Ok(CallOutput::Content(content))) => Ok(serde_json::to_value(content).unwrap_or(Value::Null)),
            Ok(Err(failure)) => Err(failure),
            Err(e) => Err(ToolFailure::new(ErrorKind::BadRequest, e.message)),
        }
    }

    /// Reads a resource by URI: a fixed resource first, then the templates in order.
    pub async fn read_resource(&self, cx: Cx<S>, uri: &str) -> Result<Vec<ResourceContents>, RpcError> {
        let (read, params) = self.find_resource(uri).ok_or_else(|| resource_not_found(uri))?;
        read(cx, ResourceRequest { uri: uri.to_owned(), params })
            .await
            .map_err(|f| failure_to_rpc(f, || resource_not_found(uri)))
    }

    pub(crate) fn find_resource(
        &self,
        uri: &str,
    ) -> Option<(ReadHandler<S>, std::collections::BTreeMap<String, String>)> {
        if let Some(r) = self.0.resources.iter().find(|r| r.resource.uri == uri) {
            return Some((Arc::clone(&r.read), Default::default()));
        }
        self.0
            .templates
            .iter()
            .find_map(|t| match_template(&t.template.uri_template, uri).map(|p| (Arc::clone(&t.read), p)))
    }

    pub(crate) async fn get_prompt(&self, cx: Cx<S>, name: &str, args: PromptArgs) -> Result<PromptResult, RpcError> {
        let p = self.0.prompts.iter().find(|p| p.prompt.name == name).ok_or_else(|| prompt_not_found(name))?;
        if let Some(missing) = p.prompt.arguments.iter().find(|a| a.required && !args.contains_key(&a.name)) {
            return Err(RpcError::invalid_params(format!("prompt {name} needs the argument {}", missing.name)));
        }
        (p.get)(cx, args).await.map_err(|f| failure_to_rpc(f, || prompt_not_found(name)))
    }

    pub(crate) async fn complete(&self, cx: Cx<S>, req: CompletionRequest) -> Result<Vec<String>, RpcError> {
        let handler = self.0.completion.as_ref().ok_or_else(|| RpcError::method_not_found("completion/complete"))?;
        handler(cx, req).await.map_err(|f| failure_to_rpc(f, || RpcError::invalid_params("Nothing to complete")))
    }

    pub(crate) fn next_session_key(&self) -> u64 {
        self.0.next_session.fetch_add(1, Ordering::Relaxed)
    }

    pub(crate) fn register(&self, key: u64, session: &Arc<SessionCore<S>>) {
        self.0.sessions.lock().insert(key, Arc::downgrade(session));
    }

    fn broadcast(&self, f: impl Fn(&SessionCore<S>)) {
        for session in self.0.sessions.live() {
            f(&session);
        }
    }
}

impl<S> Server<S> {
    pub(crate) fn unregister(&self, id: u64) {
        self.0.sessions.lock().remove(&id);
    }
}

/// Why [`Server::replace_handler`] could not replace a handler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplaceError {
    /// The server is already shared (served, or cloned); handlers are replaced before that.
    Shared,
    /// No operation has that name (a dynamic tool is replaced with `add_tool`).
    NoSuchOperation(String),
}

impl std::fmt::Display for ReplaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplaceError::Shared => f.write_str("the server is already shared; its handlers can no longer change"),
            ReplaceError::NoSuchOperation(name) => write!(f, "no operation is named {name:?}"),
        }
    }
}

impl std::error::Error for ReplaceError {}

pub(crate) fn resource_not_found(uri: &str) -> RpcError {
    RpcError::new(code::RESOURCE_NOT_FOUND, format!("Resource not found: {uri}"))
        .with_data(serde_json::json!({ "uri": uri }))
}

/// A prompt name that names nothing: invalid params, as the specification says (resources have
/// their own code, -32002).
pub(crate) fn prompt_not_found(name: &str) -> RpcError {
    RpcError::invalid_params(format!("Prompt not found: {name}")).with_data(serde_json::json!({ "name": name }))
}

/// A handler failure outside `tools/call` becomes a JSON-RPC error carrying the failure body; a
/// not-found failure the error `not_found` makes for what was asked.
fn failure_to_rpc(f: ToolFailure, not_found: impl FnOnce() -> RpcError) -> RpcError {
    let code = match f.kind {
        ErrorKind::NotFound => return not_found().with_data(f.body),
        ErrorKind::InvalidInput | ErrorKind::BadRequest => code::INVALID_PARAMS,
        _ => code::INTERNAL_ERROR,
    };
    let message = f.body.get("error").and_then(Value::as_str).unwrap_or("request failed").to_owned();
    RpcError::new(code, message).with_data(f.body)
}

impl<S: Send + Sync + 'static> ServerBuilder<S> {
    /// The name and version given in `initialize` (pass `env!("CARGO_PKG_NAME")`, `env!("CARGO_PKG_VERSION")`).
    pub fn info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info = ServerInfo { name: name.into(), version: version.into() };
        self
    }
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }
    /// The operations, in the order `tools/list` shows them (`table![a, b, c]`).
    pub fn operations(mut self, ops: Vec<Box<dyn Operation<S>>>) -> Self {
        self.operations.extend(ops);
        self
    }
    pub fn resource<F, Fut>(mut self, resource: Resource, read: F) -> Self
    where
        F: Fn(Cx<S>, ResourceRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ResourceContents>, ToolFailure>> + Send + 'static,
    {
        self.resources.push(StaticResource { resource, read: read_handler(read) });
        self
    }
    pub fn resource_template<F, Fut>(mut self, template: ResourceTemplate, read: F) -> Self
    where
        F: Fn(Cx<S>, ResourceRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ResourceContents>, ToolFailure>> + Send + 'static,
    {
        self.templates.push(TemplateResource { template, read: read_handler(read) });
        self
    }
    pub fn prompt<F, Fut>(mut self, prompt: Prompt, get: F) -> Self
    where
        F: Fn(Cx<S>, PromptArgs) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<PromptResult, ToolFailure>> + Send + 'static,
    {
        self.prompts.push(RegisteredPrompt { prompt, get: prompt_handler(get) });
        self
    }
    /// The handler of `completion/complete` (declares the `completions` capability).
    pub fn completion<F, Fut>(mut self, complete: F) -> Self
    where
        F: Fn(Cx<S>, CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<String>, ToolFailure>> + Send + 'static,
    {
        self.completion = Some(completion_handler(complete));
        self
    }
    pub fn page_size(mut self, n: usize) -> Self {
        self.config.page_size = n.max(1);
        self
    }
    pub fn result_limit(mut self, chars: usize) -> Self {
        self.config.result_limit = chars;
        self
    }
    /// How long 2026-07-28 clients may cache lists, reads and discovery (default: stale at once,
    /// private).
    pub fn cache_hint(mut self, hint: CacheHint) -> Self {
        self.config.cache = hint;
        self
    }
    /// The key that signs multi-round `requestState`s: give every instance of a scaled-out
    /// server the same one, so a retry may land on any of them.
    pub fn state_key(mut self, key: StateKey) -> Self {
        self.config.state_key = key;
        self
    }

    /// Where tasks are kept (default: in memory, at most 1,000 tasks); a store
    /// shared by several instances lets any of them serve a task's `tasks/get` and `tasks/update`.
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.tasks.store = Arc::new(store);
        self
    }

    /// How long a task and its result are kept after it is created; the server stops the task
    /// then if it still runs (default 1 hour, at least a millisecond).
    pub fn task_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.tasks.ttl = ttl.max(std::time::Duration::from_millis(1));
        self
    }

    /// Adds `note` to the line `serve` prints once it listens (see [`Config::startup_note`]).
    pub fn startup_note(mut self, note: impl Into<String>) -> Self {
        self.config.startup_note = Some(note.into());
        self
    }

    /// Names tools that always run in this process, even when the others are forwarded to a
    /// remote instance of the server (see [`Config::local_tools`]).
    pub fn local_tools<I: IntoIterator<Item = T>, T: Into<String>>(mut self, names: I) -> Self {
        self.config.local_tools = names.into_iter().map(Into::into).collect();
        self
    }

    /// Builds the table (checking tool names and schemas) and the server.
    pub fn build(self) -> Result<Server<S>, TableError> {
        let server = Server(Arc::new(ServerInner {
            table: Table::new(self.operations)?,
            info: self.info,
            instructions: self.instructions,
            state: self.state,
            resources: self.resources,
            templates: self.templates,
            prompts: self.prompts,
            completion: self.completion,
            config: self.config,
            tasks: self.tasks,
            sessions: Arc::default(),
            next_session: AtomicU64::new(1),
            subscription_observer: None,
        }));
        server.0.tasks.watch(Box::new(Listens(Arc::clone(&server.0.sessions))));
        Ok(server)
    }
}

/// The live sessions, by key; weak, so a session ends when its transport lets go of it.
struct LiveSessions<S>(Mutex<HashMap<u64, Weak<SessionCore<S>>>>);

impl<S> Default for LiveSessions<S> {
    fn default() -> Self {
        LiveSessions(Mutex::new(HashMap::new()))
    }
}

impl<S> LiveSessions<S> {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Weak<SessionCore<S>>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The sessions still alive, taken out of the lock (a broadcast sends under theirs).
    fn live(&self) -> Vec<Arc<SessionCore<S>>> {
        self.lock().values().filter_map(Weak::upgrade).collect()
    }
}

/// The sessions' open listens, as the watchers of task changes (`notifications/tasks`).
struct Listens<S>(Arc<LiveSessions<S>>);

impl<S: Send + Sync + 'static> TaskWatchers for Listens<S> {
    fn watches(&self, id: &str) -> bool {
        self.0.live().iter().any(|s| s.watches_task(id))
    }

    fn changed(&self, id: &str, detailed: serde_json::Map<String, Value>) {
        let detailed = Value::Object(detailed);
        for session in self.0.live() {
            session.task_changed(id, &detailed);
        }
    }
}

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
            .field("config", &s.config)
            .finish_non_exhaustive()
    }
}

impl<S> std::fmt::Debug for ServerBuilder<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.info)
            .field("operations", &self.operations.len())
            .field("resources", &self.resources.len())
            .field("templates", &self.templates.len())
            .field("prompts", &self.prompts.len())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}
