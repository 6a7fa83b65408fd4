//! What a forwarding server adds to its forwarded calls ([`Options::hook`](super::Options::hook)):
//! headers of its own (a session's token), arguments and results rewritten on the way (ids the
//! remote keeps under a prefix), an answer of its own instead of the call (a call that cannot
//! go yet), and the names its followed resources have at the remote.

use hyper::header::{HeaderName, HeaderValue};
use serde_json::Value;
use tooltable::Error;
use tooltable::tool::Output;

/// A call about to be forwarded: the arguments to send and the headers to add.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    pub args: Value,
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

/// Called around every forwarded call, and by the follower of the remote's resource updates.
/// Every method has a default that changes nothing.
pub trait Hook: Send + Sync + std::fmt::Debug + 'static {
    /// Before a call of `tool` is sent: what to send, or the answer to give instead.
    fn outgoing(&self, tool: &str, args: Value) -> Result<Outgoing, Error> {
        let _ = tool;
        Ok(Outgoing { args, headers: Vec::new() })
    }

    /// The answer of a call of `tool`, on its way back.
    fn incoming(&self, tool: &str, answer: Result<Output, Error>) -> Result<Output, Error> {
        let _ = tool;
        answer
    }

    /// The remote's URI of a resource a local session subscribed to; `None`: not followed at the
    /// remote (yet: see [`changes`](Hook::changes)).
    fn remote_uri(&self, local: &str) -> Option<String> {
        Some(local.to_owned())
    }

    /// The local URI of a resource the remote says was updated; `None`: none of ours.
    fn local_uri(&self, remote: &str) -> Option<String> {
        Some(remote.to_owned())
    }

    /// Headers of every request of the follower's session with the remote.
    fn session_headers(&self) -> Vec<(HeaderName, HeaderValue)> {
        Vec::new()
    }

    /// Marked changed whenever what [`remote_uri`](Hook::remote_uri) or
    /// [`session_headers`](Hook::session_headers) answer changes: the follower then opens its
    /// session again and subscribes anew. `None` (the default): they never change.
    fn changes(&self) -> Option<tokio::sync::watch::Receiver<()>> {
        None
    }
}
