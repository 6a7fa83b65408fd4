//! Revision 2026-07-28: requests that carry their protocol version, client capabilities and log
//! level in their own `_meta` instead of an `initialize` handshake, `server/discover`, and the
//! fields every result of that revision has (`resultType`, the server's identity, cache hints).

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::SessionCore;
use super::lifecycle::{self, STATELESS_VERSIONS, SUPPORTED_VERSIONS};
use super::rounds::RoundInput;
use crate::jsonrpc::{RpcError, code};
use crate::logging::LogLevel;
use crate::request_state::StateKey;
use crate::server::ServerInfo;

/// The `_meta` key of a 2026-07-28 request's protocol version.
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// The methods 2026-07-28 removed: a request of that revision for one is an unknown method.
const REMOVED: [&str; 5] = ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"];

/// The requests whose handlers may ask the client, so may take several rounds.
const ASKING: [&str; 4] = ["tools/call", "prompts/get", "resources/read", "completion/complete"];

/// The results a client may cache, which carry `ttlMs` and `cacheScope`.
const CACHEABLE: [&str; 6] =
    ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"];

/// What one request of the stateless revision says of itself.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RequestMeta {
    pub version: &'static str,
    pub client_capabilities: Value,
    /// The level the request asked for; none means no `notifications/message` at all.
    pub log_level: Option<LogLevel>,
    cacheable: bool,
    /// What the request brought of earlier rounds, for a request that can ask the client.
    pub input: Option<RoundInput>,
}

/// How long a client may reuse a cacheable result, and whether shared caches may hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CacheHint {
    /// Milliseconds; 0 means stale at once (revalidate every time).
    #[serde(rename = "ttlMs")]
    pub ttl_ms: u64,
    #[serde(rename = "cacheScope")]
    pub scope: CacheScope,
}

/// `public`: the same for every caller; `private`: only for the caller's own authorization context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    Public,
    Private,
}

impl Default for CacheHint {
    /// Stale at once and private: safe for a server whose lists change at run time and whose
    /// resources may differ per caller, until it says otherwise.
    fn default() -> Self {
        CacheHint { ttl_ms: 0, scope: CacheScope::Private }
    }
}

/// How a request is to be served by a session that has not been initialized.
pub(super) enum Era {
    /// A 2025 revision's request: `initialize`, or `ping` before it.
    Handshake,
    /// A 2026-07-28 request, described by its `_meta`.
    Stateless(RequestMeta),
}

/// Reads the era of a request to a session with no handshake; a request of neither era is
/// refused with the error the 2026-07-28 revision names.
pub(super) fn era(method: &str, params: &Option<Value>, key: &StateKey) -> Result<Era, RpcError> {
    let meta = params.as_ref().and_then(|p| p.get("_meta")).and_then(Value::as_object);
    let version = meta.and_then(|m| m.get(PROTOCOL_VERSION));
    if version.is_none() && matches!(method, "initialize" | "ping") {
        return Ok(Era::Handshake);
    }
    let needs = "a request needs `_meta` with `io.modelcontextprotocol/protocolVersion` and \
                 `io.modelcontextprotocol/clientCapabilities` (revision 2026-07-28), or an `initialize` handshake first";
    let meta = meta.ok_or_else(|| RpcError::invalid_params(needs))?;
    let version = version.and_then(Value::as_str).ok_or_else(|| RpcError::invalid_params(needs))?;
    let client_capabilities = match meta.get(CLIENT_CAPABILITIES) {
        Some(c @ Value::Object(_)) => c.clone(),
        _ => return Err(RpcError::invalid_params(needs)),
    };
    let Some(version) = STATELESS_VERSIONS.iter().copied().find(|v| *v == version) else {
        return Err(unsupported_version(version));
    };
    if REMOVED.contains(&method) {
        return Err(RpcError::method_not_found(method));
    }
    let log_level = match meta.get(LOG_LEVEL) {
        None | Some(Value::Null) => None,
        Some(level) => Some(
            level
                .as_str()
                .and_then(LogLevel::parse)
                .ok_or_else(|| RpcError::invalid_params(format!("unknown log level {level}")))?,
        ),
    };
    let input = match ASKING.contains(&method) {
        true => Some(RoundInput::read(method, params, key)?),
        false => None,
    };
    Ok(Era::Stateless(RequestMeta {
        version,
        client_capabilities,
        log_level,
        cacheable: CACHEABLE.contains(&method),
        input,
    }))
}

/// `UnsupportedProtocolVersionError` (-32022): the versions this server speaks.
pub(crate) fn unsupported_version(requested: &str) -> RpcError {
    RpcError::new(code::UNSUPPORTED_PROTOCOL_VERSION, format!("Unsupported protocol version: {requested}"))
        .with_data(json!({ "supported": SUPPORTED_VERSIONS, "requested": requested }))
}

/// `server/discover`: the versions, capabilities, identity and instructions of the server.
pub(super) fn discover<S: Send + Sync + 'static>(session: &SessionCore<S>) -> Value {
    let server = &session.server.0;
    let mut result = Map::new();
    result.insert("supportedVersions".into(), json!(SUPPORTED_VERSIONS));
    let mut capabilities = lifecycle::capabilities(session);
    if server.table.entries().iter().any(|e| e.descriptor.task_support != crate::TaskSupport::Forbidden) {
        capabilities["extensions"] = json!({ crate::tasks::EXTENSION: {} });
    }
    result.insert("capabilities".into(), capabilities);
    if let Some(text) = &server.instructions {
        result.insert("instructions".into(), json!(text));
    }
    Value::Object(result)
}

/// A result as the stateless revision sends it: `resultType` first, the value's own fields, the
/// server's identity in `_meta`, and cache hints on the results a client may cache.
#[derive(Serialize)]
pub(super) struct StatelessResult<'a, T> {
    #[serde(rename = "resultType")]
    result_type: &'static str,
    #[serde(flatten)]
    value: T,
    #[serde(rename = "_meta")]
    meta: ResultMeta<'a>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    cache: Option<CacheHint>,
}

#[derive(Serialize)]
struct ResultMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    server_info: &'a ServerInfo,
}

impl<'a, T: Serialize> StatelessResult<'a, T> {
    pub(super) fn complete(value: T, meta: &RequestMeta, info: &'a ServerInfo, cache: CacheHint) -> Self {
        StatelessResult {
            result_type: "complete",
            value,
            meta: ResultMeta { server_info: info },
            cache: meta.cacheable.then_some(cache),
        }
    }

    /// A `CreateTaskResult`: the task that will compute the result; never cached.
    pub(super) fn task(value: T, info: &'a ServerInfo) -> Self {
        StatelessResult { result_type: "task", value, meta: ResultMeta { server_info: info }, cache: None }
    }

    /// A round that needs the client's input first: never cached.
    pub(super) fn input_required(value: T, info: &'a ServerInfo) -> Self {
        StatelessResult { result_type: "input_required", value, meta: ResultMeta { server_info: info }, cache: None }
    }
}
