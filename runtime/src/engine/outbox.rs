//! What a session gives its transport: each message for the client and where it belongs, and
//! the two signals about a request's stream that carry no message.

use tokio::sync::mpsc;

use crate::api::rpc::RequestId;

/// Where a message for the client belongs, for a transport that keeps one stream per request
/// (HTTP); stdio writes every message to its one stream alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// The response to this request: the last message of its stream.
    Response(RequestId),
    /// A notification or a request to the client sent while this request runs.
    During(RequestId),
    /// A message that belongs to no request (list_changed, resources/updated, a stray error).
    Session,
}

/// What a session hands its transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outgoing {
    /// A JSON-RPC message for the client: its JSON text (no newline in it) and where it belongs.
    Message {
        /// The message.
        json: String,
        /// Where it belongs.
        destination: Destination,
    },
    /// The call answering this request asks its transport to close the stream carrying it now,
    /// so that the client reconnects and resumes (SSE polling). Transports without streams
    /// ignore it.
    CloseStream(RequestId),
    /// The client cancelled this request, which gets no response: a transport that holds a
    /// stream or a connection open for it lets go of it.
    Cancelled(RequestId),
}

impl Outgoing {
    /// A message for `destination`.
    pub fn message(json: String, destination: Destination) -> Self {
        Outgoing::Message { json, destination }
    }
}

/// Where a session's outgoing messages go. `send` is called in the order the messages are made,
/// from whichever thread makes them (the one that handed the session a request, or a runtime
/// worker running a call), so a transport can write a quick answer straight away without a hop
/// through a channel. It must not block for long: it runs inside calls.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot take a session's messages: it does not implement `tooltable::transport::Outbox`",
    note = "implement `fn send(&self, outgoing: Outgoing)` for it, or give the session an `mpsc::UnboundedSender<Outgoing>`"
)]
pub trait Outbox: Send + Sync + 'static {
    /// Takes one outgoing message or signal.
    fn send(&self, outgoing: Outgoing);
}

/// A channel as an outbox, for a transport (or a test) that takes messages in a task of its own;
/// once the receiver is gone, messages are dropped: there is no one left to tell.
impl Outbox for mpsc::UnboundedSender<Outgoing> {
    fn send(&self, outgoing: Outgoing) {
        let _ = mpsc::UnboundedSender::send(self, outgoing);
    }
}
