//! A call the upstream gave no answer to: a tool failure naming the upstream and why, never a
//! made-up result.

use serde::Serialize;
use tooltable::{ErrorBody, ErrorKind};

use crate::client::ClientError;

/// The body of the tool failure: `{"error", "upstream", "reason"}`, `reason` one of
/// `unavailable` (not connected, reconnecting), `unreachable`, `closed` (the connection ended
/// during the call), `timeout` and `protocol` (an answer that is no MCP result).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(super) struct UpstreamFailure {
    /// The message for a person, naming the upstream, its command or URL, and why.
    error: String,
    /// The upstream's name (the prefix of its tools).
    upstream: String,
    /// Why, for a program.
    reason: &'static str,
}

impl UpstreamFailure {
    /// The upstream is not connected now.
    pub(super) fn unavailable(upstream: &str, target: &str, why: &str) -> Self {
        UpstreamFailure {
            error: format!("the upstream {upstream} ({target}) is unavailable: {why}; reconnecting"),
            upstream: upstream.to_owned(),
            reason: "unavailable",
        }
    }

    /// A call that got no answer.
    pub(super) fn of(upstream: &str, target: &str, error: &ClientError) -> Self {
        UpstreamFailure {
            error: format!("the upstream {upstream} ({target}) {error}"),
            upstream: upstream.to_owned(),
            reason: error.reason(),
        }
    }
}

impl std::fmt::Display for UpstreamFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.error)
    }
}

impl std::error::Error for UpstreamFailure {}

impl ErrorBody for UpstreamFailure {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Internal
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_message_names_the_upstream_and_the_reason() {
        let f =
            UpstreamFailure::of("entities", "http://127.0.0.1:9/mcp", &ClientError::Timeout(Duration::from_secs(2)));
        assert_eq!(f.error, "the upstream entities (http://127.0.0.1:9/mcp) did not answer within 2s");
        let body = serde_json::to_value(&f).unwrap();
        assert_eq!(body, serde_json::json!({ "error": f.error, "upstream": "entities", "reason": "timeout" }));
        let down =
            UpstreamFailure::unavailable("conf", "`conformance-server mcp`", "the process exited (exit status: 1)");
        assert_eq!(
            down.error,
            "the upstream conf (`conformance-server mcp`) is unavailable: the process exited (exit status: 1); reconnecting"
        );
    }
}
