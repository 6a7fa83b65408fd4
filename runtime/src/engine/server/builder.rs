//! Building a server: its identity, state, tools, resources, prompts, completion handler and
//! settings.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use super::sessions::Listens;
use super::{Server, ServerInfo, ServerInner};
use crate::api::content::ResourceContents;
use crate::api::context::Cx;
use crate::api::descriptor::DynamicTool;
use crate::api::error::Error;
use crate::api::layer::Layer;
use crate::api::prompts::{
    CompletionHandler, CompletionRequest, Prompt, PromptArgs, PromptResult, RegisteredPrompt, completion_handler,
    prompt_handler,
};
use crate::api::resources::{
    Resource, ResourceRequest, ResourceTemplate, StaticResource, TemplateResource, read_handler,
};
use crate::api::table_error::TableError;
use crate::api::tasks::TaskStore;
use crate::api::tool::Tool;
use crate::engine::stateless::CacheHint;
use crate::engine::stateless::request_state::StateKey;
use crate::engine::table::Table;
use crate::engine::tasks::Tasks;

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
    /// How long a call of a tool that states no `timeout_ms` may take (see
    /// [`CallLimits`](crate::tool::CallLimits)); `None` (the default): no limit.
    pub call_timeout: Option<std::time::Duration>,
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
            call_timeout: None,
        }
    }
}

/// Builds a [`Server`]: `Server::builder(state).info(name, version).tools(table![..]).build()`.
pub struct ServerBuilder<S> {
    info: ServerInfo,
    instructions: Option<String>,
    state: S,
    tools: Vec<Box<dyn Tool<S>>>,
    /// The tools of mounted servers, added once the table is built.
    pub(super) mounted_tools: Vec<DynamicTool<S>>,
    pub(super) resources: Vec<StaticResource<S>>,
    pub(super) templates: Vec<TemplateResource<S>>,
    pub(super) prompts: Vec<RegisteredPrompt<S>>,
    completion: Option<CompletionHandler<S>>,
    config: Config,
    tasks: Tasks,
    layers: Vec<Box<dyn Layer<S>>>,
}

impl<S: Send + Sync + 'static> Server<S> {
    /// A builder of a server whose state is `state`.
    pub fn builder(state: S) -> ServerBuilder<S> {
        ServerBuilder {
            info: ServerInfo { name: "tooltable".into(), version: env!("CARGO_PKG_VERSION").into() },
            instructions: None,
            state,
            tools: Vec::new(),
            mounted_tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            completion: None,
            config: Config::default(),
            tasks: Tasks::default(),
            layers: Vec::new(),
        }
    }
}

impl<S: Send + Sync + 'static> ServerBuilder<S> {
    /// The name and version given in `initialize` (pass `env!("CARGO_PKG_NAME")`, `env!("CARGO_PKG_VERSION")`).
    pub fn info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info = ServerInfo { name: name.into(), version: version.into() };
        self
    }
    /// The instructions given in `initialize`: how to use the server's tools together.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }
    /// The tools, in the order `tools/list` shows them (`table![a, b, c]`).
    pub fn tools(mut self, tools: Vec<Box<dyn Tool<S>>>) -> Self {
        self.tools.extend(tools);
        self
    }
    /// A resource at a fixed URI, read by `read`.
    pub fn resource<F, Fut>(mut self, resource: Resource, read: F) -> Self
    where
        F: Fn(Cx<S>, ResourceRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ResourceContents>, Error>> + Send + 'static,
    {
        self.resources.push(StaticResource { resource, read: read_handler(read) });
        self
    }
    /// The resources a URI template names, read by `read` with the template's variables.
    pub fn resource_template<F, Fut>(mut self, template: ResourceTemplate, read: F) -> Self
    where
        F: Fn(Cx<S>, ResourceRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ResourceContents>, Error>> + Send + 'static,
    {
        self.templates.push(TemplateResource { template, read: read_handler(read) });
        self
    }
    /// A prompt, made by `get` from its arguments.
    pub fn prompt<F, Fut>(mut self, prompt: Prompt, get: F) -> Self
    where
        F: Fn(Cx<S>, PromptArgs) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<PromptResult, Error>> + Send + 'static,
    {
        self.prompts.push(RegisteredPrompt { prompt, get: prompt_handler(get) });
        self
    }
    /// The handler of `completion/complete` (declares the `completions` capability).
    pub fn completion<F, Fut>(mut self, complete: F) -> Self
    where
        F: Fn(Cx<S>, CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<String>, Error>> + Send + 'static,
    {
        self.completion = Some(completion_handler(complete));
        self
    }
    /// Items per page of the lists (default 100, at least 1).
    pub fn page_size(mut self, n: usize) -> Self {
        self.config.page_size = n.max(1);
        self
    }
    /// The result-size guard: the most characters of pretty-printed JSON a tool result may have
    /// (default 50,000); a larger one is replaced by a note saying so.
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

    /// Adds a layer around every tool call (see the [`layer`](crate::layer) module): layers see a
    /// call in the order they are added, the first outermost.
    pub fn layer(mut self, layer: impl Layer<S>) -> Self {
        self.layers.push(Box::new(layer));
        self
    }

    /// How long a call of a tool that states no `timeout_ms` may take; past it the call is
    /// cancelled and answers the tool error `{"error": "Time limit exceeded", "limitMs": N}`
    /// (default: no limit; at least a millisecond). It counts the time the call waits for the
    /// client's answers under the 2025 revisions, and a task's whole run.
    pub fn call_timeout(mut self, limit: std::time::Duration) -> Self {
        self.config.call_timeout = Some(limit.max(std::time::Duration::from_millis(1)));
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
        unique(self.resources.iter().map(|r| r.resource.uri.as_str()), "resource")?;
        unique(self.templates.iter().map(|t| t.template.uri_template.as_str()), "resource template")?;
        unique(self.prompts.iter().map(|p| p.prompt.name.as_str()), "prompt")?;
        let server = Server(Arc::new(ServerInner {
            table: Table::new(self.tools)?,
            result_meta: crate::engine::stateless::result_meta(&self.info),
            info: self.info,
            instructions: self.instructions,
            state: self.state,
            resources: self.resources,
            templates: self.templates,
            prompts: self.prompts,
            completion: self.completion,
            config: self.config,
            tasks: self.tasks,
            layers: self.layers,
            outer_layer: std::sync::OnceLock::new(),
            sessions: Arc::default(),
            next_session: AtomicU64::new(1),
            subscription_observer: None,
        }));
        server.0.tasks.watch(Box::new(Listens(Arc::clone(&server.0.sessions))));
        for tool in self.mounted_tools {
            if server.table().get(&tool.descriptor.name).is_some() {
                return Err(TableError::DuplicateName { name: tool.descriptor.name });
            }
            server.0.table.insert(tool)?;
        }
        Ok(server)
    }
}

/// Two of a kind with one name or URI (a mounted server's beside this one's) is a build error.
fn unique<'a>(names: impl Iterator<Item = &'a str>, kind: &'static str) -> Result<(), TableError> {
    let mut seen = std::collections::HashSet::new();
    for name in names {
        if !seen.insert(name) {
            return Err(TableError::Duplicate { kind, name: name.to_owned() });
        }
    }
    Ok(())
}

impl<S> std::fmt::Debug for ServerBuilder<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.info)
            .field("tools", &self.tools.len())
            .field("resources", &self.resources.len())
            .field("templates", &self.templates.len())
            .field("prompts", &self.prompts.len())
            .field("layers", &self.layers.len())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}
