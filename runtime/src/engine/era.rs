//! The era a request is served in: the revision its session negotiated with `initialize`, or
//! (revision 2026-07-28) the one its own `_meta` names, with what else that `_meta` says.

use std::sync::Arc;

use crate::api::context::Era;
use crate::engine::stateless::RequestMeta;

/// The protocol revisions this runtime speaks, newest first: the stateless one, then those with
/// an `initialize` handshake.
pub const SUPPORTED_VERSIONS: [&str; 5] = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// How one request is served.
#[derive(Debug, Clone)]
pub(crate) enum RequestEra {
    /// In the session's negotiated revision, with the capabilities and log level of its handshake.
    Handshake,
    /// In revision 2026-07-28, described by the request's `_meta`.
    Stateless(Arc<RequestMeta>),
}

impl RequestEra {
    /// The era, as a call's context tells it.
    pub(crate) fn era(&self) -> Era {
        match self {
            RequestEra::Handshake => Era::Handshake,
            RequestEra::Stateless(_) => Era::Stateless,
        }
    }

    pub(crate) fn is_stateless(&self) -> bool {
        matches!(self, RequestEra::Stateless(_))
    }
}
