//! Why a forwarded call or a connection to the remote failed: a message for a person, a stable
//! `reason` for a program, and always the URL that was asked. The bearer token is never part of
//! either: it travels only in a request header.

use std::fmt;

use serde::Serialize;
use tooltable::{ErrorBody, ErrorKind};

/// What went wrong between this process and the remote, as a program reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// No connection could be made, or it broke before the answer was complete.
    Unreachable,
    /// The whole exchange took longer than the deadline.
    Timeout,
    /// The answer's body is not JSON.
    NotJson,
    /// The answer's body is larger than the bound.
    TooLarge,
    /// The remote answered 401: the bearer token is missing or not the one it expects.
    Unauthorized,
}

impl Reason {
    fn describe(self) -> &'static str {
        match self {
            Reason::Unreachable => "could not be reached",
            Reason::Timeout => "did not answer before the deadline",
            Reason::NotJson => "answered with a body that is not JSON",
            Reason::TooLarge => "answered with a body larger than the bound",
            Reason::Unauthorized => "refused the request's credentials (401)",
        }
    }
}

/// A request to the remote that got no usable answer. As a forwarded tool's failure its body is
/// `{"error", "url", "reason", "status"?}`, never a made-up result; its kind follows the status
/// (internal without one, too large for [`Reason::TooLarge`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemoteFailure {
    /// The message for a person: the URL, what went wrong, and the detail.
    pub error: String,
    /// The URL that was asked (never with the token, which only a header carries).
    pub url: String,
    /// What went wrong, for a program.
    pub reason: Reason,
    /// The HTTP status, when the remote answered one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(skip)]
    kind: ErrorKind,
}

impl RemoteFailure {
    /// `detail` says more than the reason (the I/O error, the limit, the status line).
    pub(crate) fn new(url: &str, reason: Reason, status: Option<u16>, detail: impl fmt::Display) -> Self {
        let kind = match (reason, status) {
            (Reason::TooLarge, _) => ErrorKind::TooLarge,
            (_, Some(status)) => ErrorKind::from_http_status(status),
            _ => ErrorKind::Internal,
        };
        RemoteFailure {
            error: format!("{url} {}: {detail}", reason.describe()),
            url: url.to_owned(),
            reason,
            status,
            kind,
        }
    }
}

impl fmt::Display for RemoteFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.error)
    }
}

impl std::error::Error for RemoteFailure {}

impl ErrorBody for RemoteFailure {
    fn kind(&self) -> ErrorKind {
        self.kind
    }
}

/// Why a remote's tools could not be read, installed or refreshed, or a server not mirrored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForwardError {
    /// The bearer token has characters an HTTP header cannot carry.
    InvalidToken,
    /// The base URL is not `http://host[:port][/prefix]`.
    InvalidUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The document could not be fetched.
    Fetch(RemoteFailure),
    /// The remote answered the document's URL with a status other than 2xx.
    Status {
        /// The document's URL.
        url: String,
        /// The status it answered.
        status: u16,
    },
    /// The document is not an OpenAPI 3.1 document this client reads.
    Document {
        /// The document's URL.
        url: String,
        /// What could not be read.
        reason: String,
    },
    /// The tool descriptors do not fit the document's tools.
    Descriptors {
        /// Where they came from: their URL, or "the descriptors given".
        source: String,
        /// What does not fit.
        reason: String,
    },
    /// A tool read from the document was refused by the server's table.
    Install(tooltable::tool::TableError),
    /// A tool's handler could not be replaced by its forwarding one.
    Replace(tooltable::server::ReplaceError),
}

impl fmt::Display for ForwardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ForwardError::InvalidToken => f.write_str("the bearer token has characters an HTTP header cannot carry"),
            ForwardError::InvalidUrl { url, reason } => write!(f, "{url:?} is no base URL to forward to: {reason}"),
            ForwardError::Fetch(failure) => write!(f, "fetching the OpenAPI document failed: {failure}"),
            ForwardError::Status { url, status } => write!(f, "{url} answered {status}, not the OpenAPI document"),
            ForwardError::Document { url, reason } => write!(f, "{url} is no usable OpenAPI 3.1 document: {reason}"),
            ForwardError::Descriptors { source, reason } => {
                write!(f, "{source} cannot be laid over the tools: {reason}")
            }
            ForwardError::Install(e) => write!(f, "a forwarded tool was refused: {e}"),
            ForwardError::Replace(e) => write!(f, "a tool cannot be forwarded: {e}"),
        }
    }
}

impl std::error::Error for ForwardError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_the_kinds_the_rest_transport_answers_them_for() {
        for kind in ErrorKind::ALL.into_iter().filter(|k| *k != ErrorKind::ElicitationRequired) {
            assert_eq!(ErrorKind::from_http_status(kind.http_status()), kind);
        }
        assert_eq!(ErrorKind::from_http_status(502), ErrorKind::Internal);
        assert_eq!(ErrorKind::from_http_status(401), ErrorKind::Unauthorized);
    }

    #[test]
    fn the_message_names_the_url_and_the_reason() {
        let f = RemoteFailure::new("http://127.0.0.1:9/x", Reason::Timeout, None, "after 2s");
        assert_eq!(f.error, "http://127.0.0.1:9/x did not answer before the deadline: after 2s");
        assert_eq!(f.kind(), ErrorKind::Internal);
        let body = serde_json::to_value(&f).unwrap();
        assert_eq!(body, serde_json::json!({ "error": f.error, "url": "http://127.0.0.1:9/x", "reason": "timeout" }));
        let big = RemoteFailure::new("http://h/x", Reason::TooLarge, Some(200), "over 10 bytes");
        assert_eq!(big.kind(), ErrorKind::TooLarge);
        assert_eq!(RemoteFailure::new("http://h/x", Reason::NotJson, Some(404), "html").kind(), ErrorKind::NotFound);
    }
}
