//! The tool table: the tools of `table!` in declaration order, plus dynamic tools added and removed at
//! run time. Built once; looked up by name in O(1); each input schema compiled once.

mod arguments;
mod ended;
mod header_marks;
mod invocation;
mod limits;
mod name_hash;
mod plain_members;
mod serde_enforced;
pub(crate) mod validate;
mod wire_names;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use serde_json::Value;

use crate::api::context::Cx;
use crate::api::descriptor::{DynamicHandler, DynamicTool, RestRoute, ToolDescriptor};
use crate::api::error::Error;
use crate::api::layer::Outcome;
use crate::api::output::{Output, Rendered};
use crate::api::rpc::RpcError;
use crate::api::schema;
use crate::api::table_error::TableError;
use crate::api::tool::{BoxFuture, Tool, TypedArguments};

use arguments::Names;
pub(crate) use arguments::{Arguments, Typed, object as arguments};
pub(crate) use ended::Ended;
pub use header_marks::{MarkedProperties, MarkedProperty};
pub(crate) use invocation::Invocation;
use name_hash::NameHash;

enum Handler<S> {
    Static(Box<dyn Tool<S>>),
    Dynamic(DynamicHandler<S>),
}

/// One tool, ready to list and call.
pub struct Entry<S> {
    /// What the tool is.
    pub descriptor: ToolDescriptor,
    /// The `tools/list` form, built once.
    pub(crate) listing: Value,
    pub(crate) validator: jsonschema::Validator,
    /// The MCP outputSchema, compiled: an error body it does not admit is sent without
    /// `structuredContent`, which a client validating it would otherwise reject.
    pub(crate) output_validator: Option<jsonschema::Validator>,
    /// The arguments its inputSchema marks `x-mcp-header`, and the way to them.
    pub marked_headers: MarkedProperties,
    /// Root property names when the schema is closed to others, for the unknown-argument check.
    pub(crate) known_args: Option<Vec<String>>,
    /// When serde, reading the tool's argument type, enforces the inputSchema but for the names
    /// of the arguments, those names: arguments that have them and read as the type are not
    /// checked against the schema again.
    read_by_serde: Option<Names>,
    /// Its slots, when its calls may run only so many at once.
    slots: Option<limits::Slots>,
    handler: Handler<S>,
}

impl<S: Send + Sync + 'static> Entry<S> {
    fn new(mut descriptor: ToolDescriptor, handler: Handler<S>) -> Result<Self, TableError> {
        check_name(&descriptor.name)?;
        // Schemas given by hand (dynamic tools, forwarded ones) get what generated ones get.
        schema::host_compatible(&mut descriptor.input_schema);
        descriptor.output_schema.iter_mut().chain(descriptor.error_schema.iter_mut()).for_each(schema::host_compatible);
        let tool = || descriptor.name.clone();
        if !schema::is_object_schema(&descriptor.input_schema) {
            return Err(TableError::InputNotObject { tool: tool() });
        }
        let composed = schema::root_composition(&descriptor.input_schema);
        if !composed.is_empty() {
            tracing::warn!(
                tool = %descriptor.name,
                "the inputSchema has {} at its root, which the Anthropic API refuses for the whole tool list (Claude Code, Claude Desktop); say the rule with a root `not` or `if`/`then`/`else`",
                composed.join(", ")
            );
        }
        let validator = jsonschema::validator_for(&descriptor.input_schema)
            .map_err(|e| TableError::InvalidSchema { tool: tool(), message: e.to_string() })?;
        // The listing holds the MCP outputSchema (success or errors): built once, used for both.
        let listing = descriptor.to_mcp();
        let output_validator = listing
            .get("outputSchema")
            .map(jsonschema::validator_for)
            .transpose()
            .map_err(|e| TableError::InvalidSchema { tool: tool(), message: format!("outputSchema: {e}") })?;
        wire_names::resolve_route(&mut descriptor)?;
        let known_args = match descriptor.allow_unknown_args {
            true => None,
            false => schema::closed_property_names(&descriptor.input_schema).map(|p| p.keys().cloned().collect()),
        };
        let slots = descriptor.limits.max_concurrent.map(limits::Slots::new);
        let read_by_serde = serde_enforced::enforced_by_serde(&descriptor.input_schema).then(|| {
            let required = descriptor.input_schema.get("required").and_then(Value::as_array);
            let required = required.into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect();
            Names { known: known_args.clone(), required }
        });
        let marked_headers = MarkedProperties::of(&descriptor.input_schema);
        Ok(Entry {
            listing,
            descriptor,
            validator,
            output_validator,
            marked_headers,
            known_args,
            read_by_serde,
            slots,
            handler,
        })
    }

    /// Validates the arguments and runs the tool, without its limits (a tool's call of another):
    /// arguments that are no object are a protocol fault; a schema violation is a tool failure.
    pub(crate) async fn call(&self, cx: Cx<S>, args: Option<Value>) -> Result<Result<Output, Error>, RpcError> {
        match self.prepare(cx, arguments(args.map(Arguments::Value))?, false) {
            Ok(call) => Ok(call.start(self).await.into_outcome().into_result()),
            Err(failure) => Ok(Err(failure)),
        }
    }

    /// Validates the arguments (an object) and runs the tool within its limits: a slot among
    /// `max_concurrent`, then its time limit (`default_timeout_ms` when it states none), which
    /// counts the wait for a slot. Its success is written straight to JSON text when `written`
    /// (and the tool can).
    pub(crate) fn invoke(
        &self,
        cx: Cx<S>,
        args: Arguments,
        default_timeout_ms: Option<u64>,
        written: bool,
    ) -> Invocation<'_> {
        let call = match self.prepare(cx, args, written) {
            Ok(call) => call,
            Err(failure) => return Invocation::Ended(Some(Ended::Outcome(Outcome::ToolError(failure)))),
        };
        let limit_ms = self.descriptor.limits.timeout_ms.or(default_timeout_ms);
        // Most tools have neither limit: their calls are the tool's own future. The limits'
        // futures, larger than the rest of the call, are boxed for the tools that have one.
        if limit_ms.is_none() && self.slots.is_none() {
            return call.start(self);
        }
        Invocation::Boxed(Box::pin(self.limited(call, limit_ms)))
    }

    /// Runs a prepared call within the tool's limits.
    async fn limited(&self, call: Prepared<S>, limit_ms: Option<u64>) -> Ended {
        let run = async {
            let _slot = match &self.slots {
                Some(slots) => match slots.take().await {
                    Ok(slot) => Some(slot),
                    Err(refusal) => return Ended::Outcome(Outcome::Refused(refusal)),
                },
                None => None,
            };
            call.start(self).await
        };
        match limit_ms {
            Some(limit_ms) => limits::within(limit_ms, run).await,
            None => run.await,
        }
    }

    /// The JSON object of arguments at the start of `text` (not yet checked as JSON) read
    /// straight into the tool's argument type, where that enforces the whole schema and the
    /// arguments name what the schema requires and no other; with the length of their text.
    /// Reading them so checks them as JSON. `None` otherwise: the arguments are then checked
    /// against the schema.
    pub(crate) fn read_typed(&self, text: &str) -> Option<(TypedArguments, usize)> {
        let (Handler::Static(tool), Some(names)) = (&self.handler, &self.read_by_serde) else { return None };
        // Read first, so that the names are looked for in text known to be JSON.
        tool.read_text(text).filter(|(_, end)| names.admit(&text[..*end]))
    }

    /// Checks the arguments: read straight into the tool's argument type where that enforces the
    /// whole schema (and names no argument the schema does not know), else against the schema.
    fn prepare(&self, cx: Cx<S>, args: Arguments, written: bool) -> Result<Prepared<S>, Error> {
        let args = match self.typed(args) {
            Ok((tool, read)) => {
                // The tool reads the type it read the arguments into: it never hands them back.
                let call = tool.call_typed(cx, read, written);
                return call.map(Prepared::Started).map_err(|_| Error::internal("arguments read for another type"));
            }
            Err(args) => args,
        };
        let args = args.into_value();
        validate::arguments(self, &args)?;
        Ok(Prepared::Checked(cx, args))
    }

    /// The tool and the arguments read into its argument type (as the request was read, or now);
    /// else the arguments back, to be checked against the schema.
    fn typed(&self, args: Arguments) -> Result<(&dyn Tool<S>, TypedArguments), Arguments> {
        let Handler::Static(tool) = &self.handler else { return Err(args) };
        match args {
            Arguments::Typed { read, .. } => Ok((tool.as_ref(), read.arguments)),
            Arguments::Text(text) => match self.read_typed(&text) {
                Some((read, end)) if end == text.len() => Ok((tool.as_ref(), read)),
                _ => Err(Arguments::Text(text)),
            },
            Arguments::Value(_) => Err(args),
        }
    }

    /// Runs the tool on arguments that have passed validation.
    fn run(&self, cx: Cx<S>, args: Value) -> BoxFuture<'static, Result<Output, Error>> {
        match &self.handler {
            Handler::Static(tool) => tool.call(cx, args),
            Handler::Dynamic(f) => f(cx, args),
        }
    }
}

/// A call whose arguments are checked, ready to run.
enum Prepared<S> {
    /// Read into the tool's argument type: the tool's future.
    Started(BoxFuture<'static, Result<Rendered, Error>>),
    /// Checked against the schema, still to be handed to the tool.
    Checked(Cx<S>, Value),
}

impl<S: Send + Sync + 'static> Prepared<S> {
    /// The tool's future: started when the tool read its arguments, else started now.
    fn start(self, entry: &Entry<S>) -> Invocation<'static> {
        match self {
            Prepared::Started(call) => Invocation::Started(call),
            Prepared::Checked(cx, args) => Invocation::Called(entry.run(cx, args)),
        }
    }
}

fn check_name(name: &str) -> Result<(), TableError> {
    let ok = (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if ok { Ok(()) } else { Err(TableError::InvalidName { name: name.to_owned() }) }
}

/// Refuses a second tool on a route one of `entries` already serves (`{id}` and `{name}` are one
/// route: a request could not tell them apart).
fn check_route<S>(entries: &[Arc<Entry<S>>], entry: &Entry<S>) -> Result<(), TableError> {
    let Some(route) = &entry.descriptor.rest else { return Ok(()) };
    let shape = |r: &RestRoute| {
        let segments: Vec<&str> = r.path.split('/').map(|s| if s.starts_with('{') { "{}" } else { s }).collect();
        (r.method.clone(), segments.join("/"))
    };
    let key = shape(route);
    match entries.iter().find(|e| e.descriptor.rest.as_ref().map(shape).as_ref() == Some(&key)) {
        Some(first) => Err(TableError::DuplicateRoute {
            route: format!("{} {}", route.method, route.path),
            first: first.descriptor.name.clone(),
            second: entry.descriptor.name.clone(),
        }),
        None => Ok(()),
    }
}

impl<S> std::fmt::Debug for Entry<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry").field("descriptor", &self.descriptor).finish_non_exhaustive()
    }
}

/// The table of a server whose state is `S`.
pub struct Table<S> {
    static_entries: Vec<Arc<Entry<S>>>,
    index: HashMap<String, usize, NameHash>,
    dynamic: RwLock<Vec<Arc<Entry<S>>>>,
}

impl<S: Send + Sync + 'static> Table<S> {
    /// Builds the table from the tools of `table!`, in declaration order, checking names and schemas.
    pub fn new(tools: Vec<Box<dyn Tool<S>>>) -> Result<Self, TableError> {
        let mut static_entries = Vec::with_capacity(tools.len());
        let mut index = HashMap::with_capacity_and_hasher(tools.len(), NameHash::default());
        for tool in tools {
            let entry = Entry::new(ToolDescriptor::from(tool.meta()), Handler::Static(tool))?;
            if index.insert(entry.descriptor.name.clone(), static_entries.len()).is_some() {
                return Err(TableError::DuplicateName { name: entry.descriptor.name.clone() });
            }
            check_route(&static_entries, &entry)?;
            static_entries.push(Arc::new(entry));
        }
        Ok(Table { static_entries, index, dynamic: RwLock::new(Vec::new()) })
    }

    /// The tool of that name.
    pub fn get(&self, name: &str) -> Option<Arc<Entry<S>>> {
        if let Some(&i) = self.index.get(name) {
            return Some(Arc::clone(&self.static_entries[i]));
        }
        let dynamic = self.dynamic.read().unwrap_or_else(|p| p.into_inner());
        dynamic.iter().find(|e| e.descriptor.name == name).cloned()
    }

    /// The JSON object of arguments at the start of `text` read into the argument type of the
    /// tool of that name, as [`Entry::read_typed`] reads it, with the length of its text; `None`
    /// for a tool added at run time, which reads no text. The text is to be kept with them when
    /// `keeps_text`.
    pub(crate) fn read_typed(&self, name: &str, text: &str, keeps_text: bool) -> Option<(Typed, usize)> {
        let entry = *self.index.get(name)?;
        let (arguments, end) = self.static_entries[entry].read_typed(text)?;
        Some((Typed { entry, arguments, keeps_text }, end))
    }

    /// The tool of that name, found by its place when `args` were read into its argument type.
    pub(crate) fn get_for(&self, name: &str, args: Option<&Arguments>) -> Option<Arc<Entry<S>>> {
        if let Some(Arguments::Typed { read, .. }) = args
            && let Some(entry) = self.static_entries.get(read.entry)
            && entry.descriptor.name == name
        {
            return Some(Arc::clone(entry));
        }
        self.get(name)
    }

    /// Every tool: those of `table!` in declaration order, then the dynamic tools in insertion order.
    pub fn entries(&self) -> Vec<Arc<Entry<S>>> {
        let dynamic = self.dynamic.read().unwrap_or_else(|p| p.into_inner());
        self.static_entries.iter().chain(dynamic.iter()).cloned().collect()
    }

    /// The descriptors of every tool, in listing order.
    pub fn descriptors(&self) -> Vec<ToolDescriptor> {
        self.entries().iter().map(|e| e.descriptor.clone()).collect()
    }

    /// Adds or replaces a dynamic tool. A name taken by a tool of `table!` is refused.
    pub(crate) fn insert(&self, tool: DynamicTool<S>) -> Result<(), TableError> {
        let entry = Arc::new(Entry::new(tool.descriptor, Handler::Dynamic(tool.handler))?);
        if self.index.contains_key(&entry.descriptor.name) {
            return Err(TableError::DuplicateName { name: entry.descriptor.name.clone() });
        }
        let mut dynamic = self.dynamic.write().unwrap_or_else(|p| p.into_inner());
        check_route(&self.static_entries, &entry)?;
        let others: Vec<_> = dynamic.iter().filter(|e| e.descriptor.name != entry.descriptor.name).cloned().collect();
        check_route(&others, &entry)?;
        match dynamic.iter_mut().find(|e| e.descriptor.name == entry.descriptor.name) {
            Some(slot) => *slot = entry,
            None => dynamic.push(entry),
        }
        Ok(())
    }

    /// Serves the tool `name` of `table!` with `handler` instead of its function, keeping its descriptor
    /// and its place; false when there is no such tool or its entry is held elsewhere.
    pub(crate) fn replace_handler(&mut self, name: &str, handler: DynamicHandler<S>) -> bool {
        let Some(&i) = self.index.get(name) else { return false };
        match Arc::get_mut(&mut self.static_entries[i]) {
            Some(entry) => {
                entry.handler = Handler::Dynamic(handler);
                true
            }
            None => false,
        }
    }

    /// Removes a dynamic tool; false when there was none of that name.
    pub(crate) fn remove(&self, name: &str) -> bool {
        let mut dynamic = self.dynamic.write().unwrap_or_else(|p| p.into_inner());
        let before = dynamic.len();
        dynamic.retain(|e| e.descriptor.name != name);
        dynamic.len() != before
    }
}

impl<S> std::fmt::Debug for Table<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table").field("tools", &self.len()).finish_non_exhaustive()
    }
}

impl<S> Table<S> {
    /// How many tools the table holds.
    pub fn len(&self) -> usize {
        self.static_entries.len() + self.dynamic.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether the table holds no tool.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_specification() {
        assert!(check_name("get_state").is_ok());
        assert!(check_name("a.b-c_D9").is_ok());
        assert!(check_name(&"x".repeat(128)).is_ok());
        for bad in ["", "has space", "slash/y", "é", &"x".repeat(129)] {
            assert_eq!(check_name(bad), Err(TableError::InvalidName { name: bad.to_owned() }));
        }
    }
}
