//! A tool's descriptor: what `tools/list` shows of it, and the REST route the HTTP transport
//! serves; and a tool added at run time, a descriptor with a handler.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::api::context::Cx;
use crate::api::error::Error;
use crate::api::output::Output;
use crate::api::tool::{BoxFuture, ToolMeta};

/// The MCP tool annotations, as the tool states them. A hint left `None` is not emitted,
/// and a client then assumes the specification's default: `readOnlyHint` false,
/// `destructiveHint` true, `idempotentHint` false, `openWorldHint` true.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotations {
    /// `readOnlyHint`: the tool changes nothing.
    pub read_only: Option<bool>,
    /// `destructiveHint`: a change it makes may destroy something.
    pub destructive: Option<bool>,
    /// `idempotentHint`: calling it again with the same arguments changes nothing more.
    pub idempotent: Option<bool>,
    /// `openWorldHint`: it reaches beyond the server (the web, other systems).
    pub open_world: Option<bool>,
}

impl Annotations {
    /// The MCP `ToolAnnotations` object: the stated hints, in the specification's order.
    pub fn to_mcp(&self) -> serde_json::Map<String, Value> {
        [
            ("readOnlyHint", self.read_only),
            ("destructiveHint", self.destructive),
            ("idempotentHint", self.idempotent),
            ("openWorldHint", self.open_world),
        ]
        .into_iter()
        .filter_map(|(key, hint)| hint.map(|h| (key.to_owned(), Value::Bool(h))))
        .collect()
    }
}

/// Whether a tool's calls may run as tasks (the `io.modelcontextprotocol/tasks` extension), as
/// its MCP descriptor states in `execution.taskSupport`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// Always answered in the call's own response (the default).
    #[default]
    Forbidden,
    /// Run as a task for a client that declares the extension; synchronously for one that does not.
    Optional,
    /// Only as a task: a client that does not declare the extension is refused (-32021).
    Required,
}

impl TaskSupport {
    /// The value of `execution.taskSupport`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// Limits on a tool's calls, which the server holds every call to, after its layers (see the
/// [`layer`](crate::layer) module): `#[tool(timeout_ms = N, max_concurrent = N)]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallLimits {
    /// How long one call may take, in milliseconds, from when it reaches the tool's limits
    /// (waiting for a slot included); past it the call is cancelled and answers the tool error
    /// `{"error": "Time limit exceeded", "limitMs": N}` (504 over REST). `None`: the server's
    /// [`call_timeout`](crate::ServerBuilder::call_timeout), if it has one.
    pub timeout_ms: Option<u64>,
    /// How many of its calls may run at once. Calls beyond wait for a slot, as many as may run;
    /// one more is refused with the tool error `{"error": "Too many concurrent calls",
    /// "maxConcurrent": N}` (429 over REST). `None`: no limit.
    pub max_concurrent: Option<u32>,
}

/// The REST route a tool is also served at (`rest = "GET /models/{id}"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestRoute {
    /// Upper-case HTTP method: GET, POST, PUT, PATCH or DELETE.
    pub method: String,
    /// Path template; `{name}` binds the argument field `name`.
    pub path: String,
    /// The argument field that takes the whole JSON body, if one does.
    pub body: Option<String>,
    /// The success status code.
    pub status: u16,
    /// The success response's `Location` header (`location = "/models/{id}"`): a path template
    /// whose `{name}`s the result's fields of that name fill, each as one segment. A result
    /// without one of them answers without the header.
    pub location: Option<String>,
}

impl RestRoute {
    /// The `{name}` parameters of the path template, in order.
    pub fn path_params(&self) -> impl Iterator<Item = &str> {
        self.path.split('/').filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
    }
}

/// Everything the runtime knows about one tool, whether it came from `#[tool]` or was added
/// at run time.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDescriptor {
    /// Its name, `[A-Za-z0-9_.-]{1,128}`.
    pub name: String,
    /// Its title, for people.
    pub title: Option<String>,
    /// What it does, for the model.
    pub description: String,
    /// The schema of its arguments; its root is `type: object`.
    pub input_schema: Value,
    /// The schema of a successful result (what REST answers with a 2xx status).
    pub output_schema: Option<Value>,
    /// The schema of the error bodies the tool returns, when it states one. The MCP outputSchema
    /// is then "the success value or one of these", so a client that validates an error's
    /// `structuredContent` accepts it.
    pub error_schema: Option<Value>,
    /// Its hints.
    pub annotations: Annotations,
    /// The REST route it is also served at.
    pub rest: Option<RestRoute>,
    /// When false (the default), an argument the inputSchema does not name is rejected by name.
    pub allow_unknown_args: bool,
    /// Whether its calls may run as tasks; stated in the descriptor's `execution` unless forbidden.
    pub task_support: TaskSupport,
    /// When true, a call becomes a task only when its code calls `Cx::start_task` (its questions
    /// before are asked in rounds); else a call that may be a task is one from the start.
    pub deferred_task: bool,
    /// Its time limit and how many of its calls may run at once; not part of what `tools/list`
    /// shows.
    pub limits: CallLimits,
    /// The OAuth scopes a caller's credentials must grant to call it (all of them); none by
    /// default. An HTTP transport that authenticates callers refuses a caller who lacks one with
    /// 403, names them in its protected resource metadata and in OpenAPI; not part of what
    /// `tools/list` shows.
    pub scopes: Vec<String>,
}

impl ToolDescriptor {
    /// A descriptor with an input schema and nothing else set.
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> Self {
        ToolDescriptor {
            name: name.into(),
            title: None,
            description: description.into(),
            input_schema,
            output_schema: None,
            error_schema: None,
            annotations: Annotations::default(),
            rest: None,
            allow_unknown_args: false,
            task_support: TaskSupport::Forbidden,
            deferred_task: false,
            limits: CallLimits::default(),
            scopes: Vec::new(),
        }
    }

    /// The MCP `Tool` object, keys in the order the specification lists them.
    pub fn to_mcp(&self) -> Value {
        let mut tool = Map::new();
        tool.insert("name".into(), json!(self.name));
        if let Some(title) = &self.title {
            tool.insert("title".into(), json!(title));
        }
        tool.insert("description".into(), json!(self.description));
        tool.insert("inputSchema".into(), self.input_schema.clone());
        if let Some(schema) = self.mcp_output_schema() {
            tool.insert("outputSchema".into(), schema);
        }
        let annotations = self.annotations.to_mcp();
        if !annotations.is_empty() {
            tool.insert("annotations".into(), Value::Object(annotations));
        }
        if self.task_support != TaskSupport::Forbidden {
            tool.insert("execution".into(), json!({ "taskSupport": self.task_support.as_str() }));
        }
        Value::Object(tool)
    }

    /// The outputSchema MCP clients see: the success schema, or "success or error" when the tool
    /// states its error bodies.
    pub fn mcp_output_schema(&self) -> Option<Value> {
        let success = self.output_schema.as_ref()?;
        Some(match &self.error_schema {
            Some(errors) => crate::api::schema::success_or_errors(success, errors),
            None => success.clone(),
        })
    }
}

impl From<ToolMeta> for ToolDescriptor {
    fn from(meta: ToolMeta) -> Self {
        ToolDescriptor {
            name: meta.name.to_owned(),
            title: meta.title.map(str::to_owned),
            description: meta.description.to_owned(),
            input_schema: (meta.input_schema)(),
            output_schema: (meta.output_schema)(),
            error_schema: (meta.error_schema)(),
            annotations: meta.annotations,
            rest: meta.rest.map(|r| RestRoute {
                method: r.method.to_owned(),
                path: r.path.to_owned(),
                body: r.body.map(str::to_owned),
                status: r.status,
                location: r.location.map(str::to_owned),
            }),
            allow_unknown_args: meta.allow_unknown_args,
            task_support: meta.task_support,
            deferred_task: meta.deferred_task,
            limits: meta.limits,
            scopes: meta.scopes.iter().map(|scope| (*scope).to_owned()).collect(),
        }
    }
}

/// The handler of a tool added at run time.
pub type DynamicHandler<S> = Arc<dyn Fn(Cx<S>, Value) -> BoxFuture<'static, Result<Output, Error>> + Send + Sync>;

/// A tool added at run time, with its own descriptor and handler (a bridge's forwarded capability).
pub struct DynamicTool<S> {
    /// What `tools/list` shows of it.
    pub descriptor: ToolDescriptor,
    /// What runs it, on arguments already validated against the descriptor's inputSchema.
    pub handler: DynamicHandler<S>,
}

impl<S> DynamicTool<S> {
    /// A tool of this descriptor whose calls `handler` answers.
    pub fn new<F, Fut>(descriptor: ToolDescriptor, handler: F) -> Self
    where
        F: Fn(Cx<S>, Value) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Output, Error>> + Send + 'static,
    {
        DynamicTool { descriptor, handler: Arc::new(move |cx, args| Box::pin(handler(cx, args))) }
    }
}

impl<S> fmt::Debug for DynamicTool<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicTool").field("descriptor", &self.descriptor).finish_non_exhaustive()
    }
}
