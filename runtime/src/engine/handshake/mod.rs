//! The handshake era (revisions 2024-11-05 to 2025-11-25): `initialize` negotiates a revision
//! and the client's capabilities once, and the session holds them, with its log level and its
//! resource subscriptions, for every request after. JSON-RPC batches (2025-03-26) belong here.

pub(crate) mod batch;
mod initialize;

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::api::logging::LogLevel;

pub(crate) use initialize::{initialize, initialized};

/// The revisions negotiated by `initialize`.
pub const HANDSHAKE_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The revision `initialize` answers when the client asks for one not in [`HANDSHAKE_VERSIONS`].
pub const LATEST_VERSION: &str = HANDSHAKE_VERSIONS[0];

/// Whether a revision has tool titles, outputSchema and structuredContent (2025-06-18 on).
pub(crate) fn has_structured_output(version: &str) -> bool {
    version >= "2025-06-18"
}

/// What a session holds of its handshake.
pub(crate) struct SessionState {
    /// Whether `initialize` has been answered: until then only it and `ping` are served.
    initialized: bool,
    pub(crate) protocol_version: &'static str,
    pub(crate) client_capabilities: Value,
    pub(crate) log_level: LogLevel,
    pub(crate) subscriptions: HashSet<String>,
}

impl Default for SessionState {
    fn default() -> Self {
        SessionState {
            initialized: false,
            protocol_version: LATEST_VERSION,
            client_capabilities: Value::Object(Map::new()),
            log_level: LogLevel::Info,
            subscriptions: HashSet::new(),
        }
    }
}

impl SessionState {
    pub(crate) fn is_initialized(&self) -> bool {
        self.initialized
    }

    /// Whether the session speaks a revision with JSON-RPC batches: 2025-03-26 added them,
    /// 2025-06-18 removed them.
    pub(crate) fn accepts_batches(&self) -> bool {
        self.initialized && self.protocol_version == "2025-03-26"
    }

    pub(crate) fn has_structured_output(&self) -> bool {
        has_structured_output(self.protocol_version)
    }
}
