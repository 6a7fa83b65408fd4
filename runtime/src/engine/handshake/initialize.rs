//! `initialize`: version negotiation and the capabilities the server really has; the readiness
//! log once the client says `notifications/initialized`.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{HANDSHAKE_VERSIONS, LATEST_VERSION};
use crate::api::lock;
use crate::api::logging::LogLevel;
use crate::engine::jsonrpc::RpcError;
use crate::engine::methods::discovery::ServerCapabilities;
use crate::engine::params::{self, Field};
use crate::engine::server::ServerInfo;
use crate::engine::session::SessionCore;

/// The params of `initialize`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct InitializeParams {
    protocol_version: Field<String>,
    capabilities: Field<Value>,
}

/// The result of `initialize`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InitializeResult<'a> {
    pub(crate) protocol_version: &'static str,
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) server_info: &'a ServerInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) instructions: Option<&'a str>,
}

pub(crate) fn initialize<S: Send + Sync + 'static>(
    session: &SessionCore<S>,
    params: Option<Value>,
) -> Result<InitializeResult<'_>, RpcError> {
    let params: InitializeParams = params::read(params);
    let Field::Given(requested) = params.protocol_version else {
        return Err(RpcError::invalid_params("initialize needs params.protocolVersion (a string)"));
    };
    let version = HANDSHAKE_VERSIONS.iter().copied().find(|v| *v == requested).unwrap_or(LATEST_VERSION);
    {
        let mut state = lock(&session.state);
        if state.is_initialized() {
            return Err(RpcError::invalid_request("the session is already initialized"));
        }
        state.initialized = true;
        state.protocol_version = version;
        // Before `initialized`: a request that finds the session initialized finds its revision's.
        session.structured_output.store(state.has_structured_output(), std::sync::atomic::Ordering::Release);
        session.initialized.store(true, std::sync::atomic::Ordering::Release);
        state.client_capabilities = match params.capabilities {
            Field::Given(capabilities) => capabilities,
            // Kept as the client wrote it; a client that declares null declares nothing.
            Field::Null => Value::Null,
            Field::Absent | Field::Invalid => Value::Object(Map::new()),
        };
    }
    let server = &session.server;
    Ok(InitializeResult {
        protocol_version: version,
        capabilities: ServerCapabilities::of(server, false),
        server_info: server.info(),
        instructions: server.instructions(),
    })
}

/// `notifications/initialized`: one line saying the server is ready and what it serves.
pub(crate) fn initialized<S: Send + Sync + 'static>(session: &Arc<SessionCore<S>>) {
    let server = &session.server;
    let info = server.info();
    let line = format!(
        "{} {} ready: {} tools, {} resources, {} resource templates, {} prompts",
        info.name,
        info.version,
        server.table().len(),
        server.resources().len(),
        server.templates().len(),
        server.prompts().len(),
    );
    session.log(LogLevel::Info, Some(&info.name), Value::String(line), None);
}
