//! What a forwarding server adds to its forwarded calls ([`Options::hook`](super::Options::hook)):
//! headers of its own (a session's token), arguments and results rewritten on the way (ids the
//! remote keeps under a prefix), an answer of its own instead of the call (a call that cannot
//! go yet), and the names its followed resources have at the remote.

use hyper::header::{HeaderName, HeaderValue};
use serde_json::Value;
use tooltable::Error;
use tooltable::tool::Output;

/// A call about to be forwarded, as [`Hook::outgoing`] gives it back.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// The arguments to send, from which the request's path, query and body are filled.
    pub args: Value,
    /// Headers to add to the request.
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

/// Called around every forwarded call, and by the follower of the remote's resource updates.
/// Every method has a default that changes nothing.
///
/// A hook that sends a session's token with each call, and answers for the remote while there
/// is none:
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use hyper::header::{HeaderName, HeaderValue};
/// use serde_json::{Value, json};
/// use tooltable::Error;
/// use tooltable_transports::forward::{Hook, Options, Outgoing, Remote};
///
/// #[derive(Debug, Default)]
/// struct Session(Mutex<Option<HeaderValue>>);
///
/// impl Hook for Session {
///     fn outgoing(&self, _tool: &str, args: Value) -> Result<Outgoing, Error> {
///         let token = self.0.lock().unwrap().clone().ok_or_else(|| Error::forbidden("not paired yet"))?;
///         Ok(Outgoing { args, headers: vec![(HeaderName::from_static("x-session-token"), token)] })
///     }
/// }
///
/// let document = json!({ "openapi": "3.1.0", "info": { "title": "t", "version": "1" }, "paths": {
///     "/ping": { "post": { "operationId": "ping", "responses": {} } },
/// } });
/// let options = Options::default().hook(Arc::new(Session::default()));
/// let remote = Remote::from_document("http://127.0.0.1:8080", &document, options)?;
/// let server = tooltable::Server::builder(()).info("forwarder", "1.0.0").build()?;
/// remote.install(&server)?;
/// let answer = tokio::runtime::Runtime::new()?.block_on(server.call("ping", json!({})));
/// assert_eq!(answer, Err(Error::forbidden("not paired yet")), "answered here, not sent");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
