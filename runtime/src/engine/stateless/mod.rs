//! The stateless era (revision 2026-07-28): requests that carry their protocol version, client
//! capabilities and log level in their own `_meta` instead of an `initialize` handshake; the
//! fields every result of that revision has; multi-round requests; `subscriptions/listen`.

pub(crate) mod call_text;
pub(crate) mod listen;
pub(crate) mod request_state;
mod result;
pub(crate) mod rounds;

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::api::logging::LogLevel;
use crate::engine::era::{RequestEra, SUPPORTED_VERSIONS};
use crate::engine::jsonrpc::{RpcError, code};
use crate::engine::wire::member;
use request_state::StateKey;
use rounds::RoundInput;

pub use call_text::StatelessCall;
pub use result::{CacheHint, CacheScope};
pub(crate) use result::{StatelessResult, result_meta, serialized};

/// The revisions whose requests carry their own `_meta` instead of a handshake.
pub const STATELESS_VERSIONS: [&str; 1] = ["2026-07-28"];

/// The `_meta` key of a 2026-07-28 request's protocol version.
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

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
    pub(crate) version: &'static str,
    /// Shared: a client sends the same capabilities with every request, read once per thread
    /// (see [`call_text`]).
    pub(crate) client_capabilities: Arc<Value>,
    /// The level the request asked for; none means no `notifications/message` at all.
    pub(crate) log_level: Option<LogLevel>,
    pub(crate) cacheable: bool,
    /// What the request brought of earlier rounds, for a request that can ask the client.
    pub(crate) input: Option<RoundInput>,
}

/// The `_meta` keys of a 2026-07-28 request's client capabilities and log level.
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// Reads the era of a request to a session with no handshake: the handshake's for `initialize`
/// (and `ping` before it) without a protocol version in `_meta`, else the stateless one as the
/// request's `_meta` describes it. A request of neither era is refused with the error the
/// 2026-07-28 revision names.
pub(crate) fn request_era(method: &str, params: &Option<Value>, key: &StateKey) -> Result<RequestEra, RpcError> {
    // A `_meta` that is no object is none, as one that is absent or null.
    let members = params.as_ref().and_then(Value::as_object);
    let meta = members.and_then(|p| member(p, "_meta")).and_then(Value::as_object);
    let versionless = meta.is_none_or(|m| member(m, PROTOCOL_VERSION).is_none());
    if versionless && matches!(method, "initialize" | "ping") {
        return Ok(RequestEra::Handshake);
    }
    let needs = || {
        RpcError::invalid_params(
            "a request needs `_meta` with `io.modelcontextprotocol/protocolVersion` and \
             `io.modelcontextprotocol/clientCapabilities` (revision 2026-07-28), or an `initialize` handshake first",
        )
    };
    let meta = meta.ok_or_else(needs)?;
    let version = member(meta, PROTOCOL_VERSION).and_then(Value::as_str).ok_or_else(needs)?;
    let client_capabilities = member(meta, CLIENT_CAPABILITIES).and_then(Value::as_object).ok_or_else(needs)?;
    let Some(version) = STATELESS_VERSIONS.iter().copied().find(|v| *v == version) else {
        return Err(unsupported_version(version));
    };
    if REMOVED.contains(&method) {
        return Err(RpcError::method_not_found(method));
    }
    // Null is no level, as absent is.
    let log_level = match member(meta, LOG_LEVEL).filter(|level| !level.is_null()) {
        None => None,
        Some(level) => Some(
            level
                .as_str()
                .and_then(LogLevel::parse)
                .ok_or_else(|| RpcError::invalid_params(format!("unknown log level {level}")))?,
        ),
    };
    let input = match ASKING.iter().copied().find(|asking| *asking == method) {
        Some(asking) => Some(RoundInput::read(asking, params, key)?),
        None => None,
    };
    Ok(RequestEra::Stateless(Arc::new(RequestMeta {
        version,
        client_capabilities: Arc::new(Value::Object(client_capabilities.clone())),
        log_level,
        cacheable: CACHEABLE.contains(&method),
        input,
    })))
}

/// The data of `UnsupportedProtocolVersionError`.
#[derive(Debug, Serialize)]
struct UnsupportedVersion<'a> {
    supported: [&'static str; 5],
    requested: &'a str,
}

/// `UnsupportedProtocolVersionError` (-32022): the versions this server speaks.
pub(crate) fn unsupported_version(requested: &str) -> RpcError {
    let data = UnsupportedVersion { supported: SUPPORTED_VERSIONS, requested };
    RpcError::new(code::UNSUPPORTED_PROTOCOL_VERSION, format!("Unsupported protocol version: {requested}"))
        .with_data(crate::engine::wire::to_value(&data))
}
