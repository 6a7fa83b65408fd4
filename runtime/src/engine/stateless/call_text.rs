//! A 2026-07-28 `tools/call` read from its message's text, before any session takes it: its id,
//! its tool, its arguments (kept as text) and the `_meta` its era is read from, for a transport
//! that checks a request's headers against its body and would otherwise decode the message to a
//! JSON value first. Only a call of the usual kind is read so: params of `name`, `arguments` and
//! `_meta` alone, each once; a `_meta` of a supported version, client capabilities, at most a
//! known log level, and members the era does not read (`clientInfo`). Anything else (a progress token, earlier rounds' answers, a version this
//! server does not speak) is left to [`decode`](crate::engine::jsonrpc::decode) and
//! [`Session::handle`](crate::engine::session::Session::handle), which answer it as ever.

use std::cell::RefCell;
use std::fmt;
use std::sync::{Arc, LazyLock};

use serde::de::{Error as _, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::request_state::BoundRequest;
use super::rounds::RoundInput;
use super::{CLIENT_CAPABILITIES, LOG_LEVEL, PROTOCOL_VERSION, RequestMeta, STATELESS_VERSIONS};
use crate::api::logging::LogLevel;
use crate::engine::era::RequestEra;
use crate::engine::jsonrpc::RequestId;
use crate::engine::jsonrpc::{canonical_call, raw_request};
use crate::engine::methods::tool_call;
use crate::engine::server::Server;
use crate::engine::table::{Arguments, Typed};

/// The member that follows a call's arguments, whatever its `_meta` holds.
const META_MEMBER: &str = r#","_meta":"#;

/// What follows the arguments of a call written the way clients write one, its parts in one of
/// the usual orders (see [`canonical_call`]), to the end of its params: a `_meta` of the revision
/// with no client capability. Such a call's method, tool and revision are then read as the
/// constant text they are.
const USUAL_META: &str = r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#;

/// A `tools/call` of revision 2026-07-28 read from its text; handled by
/// [`Session::call_stateless`](crate::engine::session::Session::call_stateless).
pub struct StatelessCall<'a> {
    pub(crate) id: RequestId,
    pub(crate) name: &'a str,
    /// The arguments' text, which the request's state is bound to.
    arguments_text: Option<&'a str>,
    pub(crate) arguments: Option<Arguments>,
    version: &'static str,
    client_capabilities: Arc<Value>,
    log_level: Option<LogLevel>,
}

impl<'a> StatelessCall<'a> {
    /// The call, when `bytes` are a 2026-07-28 `tools/call` of the usual kind, of one of
    /// `server`'s tools that marks no argument `x-mcp-header` (a transport would check those
    /// against the request's headers); `None` for anything else, which
    /// [`decode`](crate::transport::jsonrpc::decode) then reads. Its arguments are read into the
    /// tool's argument type where they can be.
    pub fn read<S: Send + Sync + 'static>(bytes: &'a [u8], server: &Server<S>) -> Option<Self> {
        let call = Self::read_usual(bytes, |name, text| server.read_typed(name, text))?;
        let tool = server.table().get_for(call.name, call.arguments.as_ref())?;
        tool.marked_headers.is_empty().then_some(call)
    }

    /// The call, when `bytes` are a 2026-07-28 `tools/call` of the usual kind; its arguments read
    /// into the tool's argument type by `typed`, given the tool's name and the text from the
    /// arguments on (see [`tool_call::arguments_at`]), where they can be.
    fn read_usual(bytes: &'a [u8], typed: impl FnOnce(&str, &str) -> Option<(Typed, usize)>) -> Option<Self> {
        if let Some((id, name, params)) = canonical_call::read_parts(bytes)
            && let Some(call) = Self::of_text(id, name, params, typed)
        {
            return Some(call);
        }
        let call = raw_request::read::<Params>(bytes, "tools/call")?;
        let Params { name, arguments, meta } = call.params;
        let arguments = match arguments {
            // Arguments that are no object are left to the value they read as.
            Some(text) if !text.get().starts_with('{') => return None,
            Some(text) => Some((text.get(), tool_call::checked(Some(text)).ok()??)),
            None => None,
        };
        Self::of(call.id, name, arguments, meta)
    }

    /// The call whose envelope, name and arguments were read as usual (see [`canonical_call`]),
    /// from the rest of its params, `params`: a `_meta` of the revision with no capability is
    /// read as the constant text it is, another alone with serde; the arguments are read into
    /// the tool's argument type by `typed` (given the tool's name and their text) where they can
    /// be.
    fn of_text(
        id: RequestId,
        name: &'a str,
        params: &'a str,
        typed: impl FnOnce(&str, &str) -> Option<(Typed, usize)>,
    ) -> Option<Self> {
        let (arguments_text, arguments, after) = tool_call::arguments_at(params, |text| typed(name, text))?;
        if after == USUAL_META {
            return Some(StatelessCall {
                id,
                name,
                arguments_text: Some(arguments_text),
                arguments: Some(arguments),
                version: STATELESS_VERSIONS[0],
                client_capabilities: Arc::clone(&NO_CAPABILITIES),
                log_level: None,
            });
        }
        let meta = after.strip_prefix(META_MEMBER)?.strip_suffix('}')?;
        Self::of(id, name, Some((arguments_text, arguments)), serde_json::from_str(meta).ok()?)
    }

    /// The call of these parts, when they are of the usual kind: the arguments with their text.
    fn of(id: RequestId, name: &'a str, arguments: Option<(&'a str, Arguments)>, meta: Meta<'a>) -> Option<Self> {
        let version = STATELESS_VERSIONS.iter().copied().find(|v| *v == meta.version)?;
        let log_level = match meta.log_level {
            Some(level) => Some(LogLevel::parse(level)?),
            None => None,
        };
        let client_capabilities = capabilities(meta.client_capabilities)?;
        let (arguments_text, arguments) = arguments.unzip();
        Some(StatelessCall { id, name, arguments_text, arguments, version, client_capabilities, log_level })
    }

    /// The request's id.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The name of the tool it calls.
    pub fn tool(&self) -> &str {
        self.name
    }

    /// The protocol version its `_meta` names.
    pub fn version(&self) -> &'static str {
        self.version
    }

    /// The era of the request, as [`request_era`](super::request_era) reads it from the
    /// request's value: its `_meta` written over `kept`'s when nothing else holds that one (the
    /// last call's, on a session of calls), and kept there. Making the `_meta` and its copy of
    /// the call, and dropping them, cost a stateless call more than a session's call spends on
    /// anything of the kind.
    pub(crate) fn era_in(&self, kept: &mut Option<Arc<RequestMeta>>) -> RequestEra {
        if self.name.len() + self.arguments_text.map_or(0, str::len) > KEPT_CALL {
            return RequestEra::Stateless(Arc::new(self.meta()));
        }
        match kept.as_mut().and_then(Arc::get_mut) {
            Some(meta) => self.write_over(meta),
            None => *kept = None,
        }
        RequestEra::Stateless(Arc::clone(kept.get_or_insert_with(|| Arc::new(self.meta()))))
    }

    /// The request's `_meta`.
    fn meta(&self) -> RequestMeta {
        RequestMeta {
            version: self.version,
            client_capabilities: Arc::clone(&self.client_capabilities),
            log_level: self.log_level,
            cacheable: false,
            input: Some(self.first_round()),
        }
    }

    /// Writes the request's `_meta` over another's, member by member: the call is bound in the
    /// text the other's was, and nothing is moved.
    fn write_over(&self, meta: &mut RequestMeta) {
        meta.version = self.version;
        if !Arc::ptr_eq(&meta.client_capabilities, &self.client_capabilities) {
            meta.client_capabilities = Arc::clone(&self.client_capabilities);
        }
        meta.log_level = self.log_level;
        meta.cacheable = false;
        match &mut meta.input {
            Some(input) => input.rebind_first_call(self.name, self.arguments_text),
            input @ None => *input = Some(self.first_round()),
        }
    }

    /// What the request brings of earlier rounds: nothing, a call read from its text being a
    /// first round.
    fn first_round(&self) -> RoundInput {
        RoundInput::first(BoundRequest::call(self.name, self.arguments_text))
    }
}

impl fmt::Debug for StatelessCall<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StatelessCall").field("id", &self.id).field("tool", &self.name).finish_non_exhaustive()
    }
}

/// A call whose name and arguments are longer than this has a `_meta` of its own, which its
/// session does not keep for the next call (see [`StatelessCall::era_in`]).
const KEPT_CALL: usize = 4096;

/// Capabilities written longer than this are read every time, not kept.
const KEPT_CAPABILITIES: usize = 4096;

thread_local! {
    /// The client capabilities this thread read last, with their text: a client sends the same
    /// ones with every request, and reading them into a value (a map, a string for each name)
    /// cost more than reading the rest of the call.
    static LAST_CAPABILITIES: RefCell<Option<(Box<str>, Arc<Value>)>> = const { RefCell::new(None) };
}

/// The capabilities of a client that declares none.
static NO_CAPABILITIES: LazyLock<Arc<Value>> = LazyLock::new(|| Arc::new(Value::Object(Map::new())));

/// The client capabilities, an object read as a value would read it: most clients declare none,
/// and the others the same ones in each request.
fn capabilities(raw: &RawValue) -> Option<Arc<Value>> {
    let text = raw.get();
    if text == "{}" {
        return Some(Arc::clone(&NO_CAPABILITIES));
    }
    let kept = LAST_CAPABILITIES
        .with_borrow(|last| last.as_ref().filter(|(kept, _)| **kept == *text).map(|(_, value)| Arc::clone(value)));
    if kept.is_some() {
        return kept;
    }
    // Within the params' `_meta`: level 3 of the message.
    if !text.starts_with('{') || !raw_request::reads_as_value(text, 3) {
        return None;
    }
    let read = Arc::new(Value::Object(serde_json::from_str::<Map<String, Value>>(text).ok()?));
    if text.len() <= KEPT_CAPABILITIES {
        LAST_CAPABILITIES.set(Some((text.into(), Arc::clone(&read))));
    }
    Some(read)
}

/// The params of a call of the usual kind; anything else fails to read.
struct Params<'a> {
    name: &'a str,
    arguments: Option<&'a RawValue>,
    meta: Meta<'a>,
}

/// The `_meta` of a call of the usual kind.
struct Meta<'a> {
    version: &'a str,
    client_capabilities: &'a RawValue,
    log_level: Option<&'a str>,
}

/// The `_meta` member the call reads, of every request: the call's progress is left to the
/// path that reads it.
const PROGRESS_TOKEN: &str = "progressToken";

/// Why a call is left to be read as a value: the message says nothing wrong with it.
const UNUSUAL: &str = "not a call of the usual kind";

impl<'de> Deserialize<'de> for Params<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ParamsVisitor)
    }
}

struct ParamsVisitor;

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = Params<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the params of a tools/call")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut name, mut arguments, mut meta) = (None, None, None);
        // Names with escapes are no borrowed strings: such a call is left to be read as a value.
        while let Some(key) = map.next_key::<&'de str>()? {
            match key {
                "name" if name.is_none() => name = Some(map.next_value()?),
                "arguments" if arguments.is_none() => arguments = Some(map.next_value()?),
                "_meta" if meta.is_none() => meta = Some(map.next_value()?),
                _ => return Err(A::Error::custom(UNUSUAL)),
            }
        }
        match (name, meta) {
            (Some(name), Some(meta)) => Ok(Params { name, arguments, meta }),
            _ => Err(A::Error::custom(UNUSUAL)),
        }
    }
}

impl<'de> Deserialize<'de> for Meta<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(MetaVisitor)
    }
}

struct MetaVisitor;

impl<'de> Visitor<'de> for MetaVisitor {
    type Value = Meta<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the _meta of a 2026-07-28 request")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut version, mut capabilities, mut log_level) = (None, None, None);
        while let Some(key) = map.next_key::<&'de str>()? {
            match key {
                PROTOCOL_VERSION if version.is_none() => version = Some(map.next_value()?),
                CLIENT_CAPABILITIES if capabilities.is_none() => capabilities = Some(map.next_value()?),
                LOG_LEVEL if log_level.is_none() => log_level = Some(map.next_value()?),
                PROTOCOL_VERSION | CLIENT_CAPABILITIES | LOG_LEVEL | PROGRESS_TOKEN => {
                    return Err(A::Error::custom(UNUSUAL));
                }
                // Read over as the value it is to be read as (within `_meta`, at level 3), and
                // dropped: the era reads nothing else.
                _ => {
                    let other: &RawValue = map.next_value()?;
                    if !raw_request::reads_as_value(other.get(), 3) {
                        return Err(A::Error::custom(UNUSUAL));
                    }
                }
            }
        }
        match (version, capabilities) {
            (Some(version), Some(client_capabilities)) => Ok(Meta { version, client_capabilities, log_level }),
            _ => Err(A::Error::custom(UNUSUAL)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct One {
        a: i64,
    }

    /// Gives back its argument: a tool whose arguments are read into its argument type.
    #[crate::tool]
    async fn add(args: One) -> Result<i64, crate::Error> {
        Ok(args.a)
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Located {
        #[schemars(extend("x-mcp-header" = "Region"))]
        region: String,
    }

    /// Gives back its region, which requests name in a header too.
    #[crate::tool]
    async fn locate(args: Located) -> Result<String, crate::Error> {
        Ok(args.region)
    }

    fn server() -> Server<()> {
        Server::builder(()).tools(crate::table![add, locate]).build().unwrap()
    }

    /// A call of a tool that marks an argument as a header (which the transport checks), or of
    /// no tool, is left to be read as a value.
    #[test]
    fn a_call_of_a_tool_of_the_server_marking_no_header_reads() {
        let call = |name: &str, arguments: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}{USUAL_META}}}"#
            )
        };
        assert!(StatelessCall::read(call("add", r#"{"a":1}"#).as_bytes(), &server()).is_some());
        assert!(StatelessCall::read(call("add", r#"{"a":"x"}"#).as_bytes(), &server()).is_some());
        assert!(StatelessCall::read(call("locate", r#"{"region":"eu"}"#).as_bytes(), &server()).is_none());
        assert!(StatelessCall::read(call("nothing", "{}").as_bytes(), &server()).is_none());
    }

    #[test]
    fn a_call_with_a_meta_of_its_own_reads_as_serde_reads_it() {
        let capabilities = [
            serde_json::json!({ "sampling": {}, "x": { "_meta": { "y": 1 } } }),
            // A member named `_meta` after another, within the `_meta`.
            serde_json::json!({ "sampling": {}, "x": { "a": 1, "_meta": { "y": 1 } } }),
        ];
        let arguments = [r#"{"a":1}"#, r#"{"a":{"b":1,"_meta":{"c":2}}}"#];
        for (arguments, capabilities) in arguments.into_iter().flat_map(|a| capabilities.iter().map(move |c| (a, c))) {
            let meta = format!(
                r#"{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{{"name":"c","version":"1"}},"io.modelcontextprotocol/clientCapabilities":{capabilities}}}"#
            );
            let params = format!(r#"{{"name":"add","arguments":{arguments},"_meta":{meta}}}"#);
            let lines = [
                format!(r#"{{"method":"tools/call","params":{params},"jsonrpc":"2.0","id":7}}"#),
                format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}"#),
                format!(r#"{{"params":{params},"method":"tools/call","id":7,"jsonrpc":"2.0"}}"#),
            ];
            for line in &lines {
                let call = StatelessCall::read(line.as_bytes(), &server()).unwrap_or_else(|| panic!("{line}"));
                assert_eq!((call.id(), call.tool()), (&RequestId::Number(7), "add"));
                assert_eq!(call.arguments_text, Some(arguments));
                assert_eq!(*call.client_capabilities, *capabilities);
                // `{"a": 1}` is the tool's argument type, read so as a call written in a usual
                // order is read; the other is kept as text, for the schema to refuse.
                let typed = matches!(call.arguments, Some(Arguments::Typed { .. }));
                assert_eq!(typed, arguments == r#"{"a":1}"# && !line.starts_with(r#"{"params""#), "{line}");
            }
        }
        // A `_meta` the era refuses is refused whichever way it is read.
        let progress = r#"{"method":"tools/call","params":{"name":"add","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":1}},"jsonrpc":"2.0","id":7}"#;
        assert!(StatelessCall::read(progress.as_bytes(), &server()).is_none());
    }

    #[test]
    fn capabilities_sent_again_are_read_once() {
        let declared = raw(r#"{"sampling":{},"roots":{"listChanged":false}}"#);
        let first = capabilities(&declared).unwrap();
        assert_eq!(*first, serde_json::json!({ "sampling": {}, "roots": { "listChanged": false } }));
        assert!(Arc::ptr_eq(&first, &capabilities(&declared).unwrap()), "the same text, the value read before");
        let other = capabilities(&raw(r#"{"elicitation":{}}"#)).unwrap();
        assert_eq!(*other, serde_json::json!({ "elicitation": {} }));
        assert!(!Arc::ptr_eq(&first, &capabilities(&declared).unwrap()), "one kept at a time");
        // What does not read as a value is refused every time, never kept.
        let out_of_range = raw(r#"{"x":1e999}"#);
        assert!(capabilities(&out_of_range).is_none());
        assert!(capabilities(&out_of_range).is_none());
        assert!(capabilities(&raw("[]")).is_none());
        assert_eq!(*capabilities(&raw("{}")).unwrap(), Value::Object(Map::new()));
    }

    #[test]
    fn a_call_written_the_usual_way_reads_as_serde_reads_it() {
        let usual = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        // The same call as the TypeScript SDK orders it, the method first and the id last.
        let method_first = format!(
            r#"{{"method":"tools/call","params":{},"jsonrpc":"2.0","id":7}}"#,
            &usual[usual.find(r#"{"name""#).unwrap()..usual.len() - 1]
        );
        let after_arguments = |text: &str| {
            let (_, _, params) = canonical_call::read_parts(text.as_bytes()).unwrap();
            tool_call::arguments_at(params, |_| None).map(|(_, _, after)| after.to_owned())
        };
        for text in [usual, method_first.as_str()] {
            assert_eq!(after_arguments(text).as_deref(), Some(USUAL_META), "{text}");
        }
        // The same call with a space: no longer the usual text, read by serde.
        let spaced = usual.replace(r#""arguments":{"a":1}"#, r#""arguments": {"a":1}"#);
        assert_eq!(after_arguments(&spaced), None);
        for text in [usual, method_first.as_str(), spaced.as_str()] {
            let call = StatelessCall::read(text.as_bytes(), &server()).unwrap();
            assert_eq!((call.id(), call.tool(), call.version()), (&RequestId::Number(7), "add", STATELESS_VERSIONS[0]));
            assert_eq!(call.arguments_text.map(str::trim_start), Some(r#"{"a":1}"#));
            // Written the usual way, the arguments are read into the tool's type as the call is.
            let typed = matches!(call.arguments, Some(Arguments::Typed { .. }));
            assert_eq!(typed, text != spaced, "{text}");
            assert_eq!((&*call.client_capabilities, call.log_level), (&Value::Object(Map::new()), None));
        }
        assert_eq!(
            USUAL_META,
            format!(r#","_meta":{{"{PROTOCOL_VERSION}":"2026-07-28","{CLIENT_CAPABILITIES}":{{}}}}}}"#)
        );
    }
}
