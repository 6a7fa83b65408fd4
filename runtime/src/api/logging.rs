//! MCP log levels (RFC 5424 severities), ordered from least to most severe.

use serde::Serialize;

/// How severe a log message is; [`Cx::log`](crate::Cx::log) sends one at or above the minimum
/// the client asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// What happens.
    Info,
    /// What happens and is worth noticing.
    Notice,
    /// Something that may be wrong.
    Warning,
    /// Something that is wrong.
    Error,
    /// Something that stops a part working.
    Critical,
    /// Something to act on at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// The level MCP names so (`"warning"`); `None` for a name it does not know.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "debug" => LogLevel::Debug,
            "info" => LogLevel::Info,
            "notice" => LogLevel::Notice,
            "warning" => LogLevel::Warning,
            "error" => LogLevel::Error,
            "critical" => LogLevel::Critical,
            "alert" => LogLevel::Alert,
            "emergency" => LogLevel::Emergency,
            _ => return None,
        })
    }
}
