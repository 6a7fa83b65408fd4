//! `initialize`: version negotiation and the capabilities the server really has; the readiness log.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{Phase, SessionCore, lock};
use crate::jsonrpc::RpcError;
use crate::logging::LogLevel;

/// The protocol revisions this runtime speaks, newest first: the stateless one, then those with
/// an `initialize` handshake.
pub const SUPPORTED_VERSIONS: [&str; 5] = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The revisions negotiated by `initialize`.
pub const HANDSHAKE_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The revisions whose requests carry their own `_meta` instead of a handshake.
pub const STATELESS_VERSIONS: [&str; 1] = ["2026-07-28"];
/// The revision `initialize` answers when the client asks for one not in [`HANDSHAKE_VERSIONS`].
pub const LATEST_VERSION: &str = HANDSHAKE_VERSIONS[0];

/// Whether a revision takes JSON-RPC batches: 2025-03-26 added them, 2025-06-18 removed them.
pub(super) fn has_batches(version: &str) -> bool {
    version == "2025-03-26"
}

/// Whether a revision has tool titles, outputSchema and structuredContent (2025-06-18 on).
pub(super) fn has_structured_output(version: &str) -> bool {
    version >= "2025-06-18"
}

pub(super) fn initialize<S: Send + Sync + 'static>(
    session: &SessionCore<S>,
    params: Option<Value>,
) -> Result<Value, RpcError> {
    let params = params.unwrap_or(Value::Null);
    let requested = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("initialize needs params.protocolVersion (a string)"))?;
    let version = HANDSHAKE_VERSIONS.iter().copied().find(|v| *v == requested).unwrap_or(LATEST_VERSION);
    {
        let mut state = lock(&session.state);
        if state.phase == Phase::Initialized {
            return Err(RpcError::invalid_request("the session is already initialized"));
        }
        state.phase = Phase::Initialized;
        state.protocol_version = version;
        state.client_capabilities = params.get("capabilities").cloned().unwrap_or_else(|| json!({}));
    }
    let server = &session.server.0;
    let mut result = Map::new();
    result.insert("protocolVersion".into(), json!(version));
    result.insert("capabilities".into(), capabilities(session));
    result.insert("serverInfo".into(), json!({ "name": server.info.name, "version": server.info.version }));
    if let Some(text) = &server.instructions {
        result.insert("instructions".into(), json!(text));
    }
    Ok(Value::Object(result))
}

/// Declares only what the server has: resources, prompts and completions when registered. Tool
/// changes and resource updates reach a stateless client through `subscriptions/listen`.
pub(super) fn capabilities<S: Send + Sync + 'static>(session: &SessionCore<S>) -> Value {
    let server = &session.server.0;
    let mut caps = Map::new();
    caps.insert("tools".into(), json!({ "listChanged": true }));
    if !server.resources.is_empty() || !server.templates.is_empty() {
        caps.insert("resources".into(), json!({ "subscribe": true, "listChanged": false }));
    }
    if !server.prompts.is_empty() {
        caps.insert("prompts".into(), json!({ "listChanged": false }));
    }
    if server.completion.is_some() {
        caps.insert("completions".into(), json!({}));
    }
    caps.insert("logging".into(), json!({}));
    Value::Object(caps)
}

/// `notifications/initialized`: one line saying the server is ready and what it serves.
pub(super) fn initialized<S: Send + Sync + 'static>(session: &Arc<SessionCore<S>>) {
    let server = &session.server.0;
    let line = format!(
        "{} {} ready: {} tools, {} resources, {} resource templates, {} prompts",
        server.info.name,
        server.info.version,
        server.table.entries().len(),
        server.resources.len(),
        server.templates.len(),
        server.prompts.len(),
    );
    session.log(LogLevel::Info, Some(&server.info.name), json!(line), None);
}
