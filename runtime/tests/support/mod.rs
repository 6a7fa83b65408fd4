// Each test binary uses a part of the helpers.
#![allow(dead_code)]

//! A client of an in-process session: raw messages in through `handle_bytes`, messages out on a
//! channel, each awaited with a timeout so that a missing answer fails instead of hanging.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;
use tooltable::Server;
use tooltable::context::Transport;
use tooltable::transport::jsonrpc::RequestId;
use tooltable::transport::{Destination, Outgoing, RequestContext, Session};

/// What the tests' messages come with: no principal, over no transport in particular.
pub const CONTEXT: RequestContext = RequestContext::new(Transport::InProcess);

/// Where a session's output went: a message to its destination, or a signal without a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    To(Destination),
    CloseStream(RequestId),
    Cancelled(RequestId),
}

/// The JSON of an outgoing message (null for a signal) and where it went.
pub fn split(out: Outgoing) -> (String, Sent) {
    match out {
        Outgoing::Message { json, destination } => (json, Sent::To(destination)),
        Outgoing::CloseStream(id) => (String::new(), Sent::CloseStream(id)),
        Outgoing::Cancelled(id) => (String::new(), Sent::Cancelled(id)),
    }
}

pub struct Peer<S: Send + Sync + 'static> {
    pub session: Session<S>,
    out: UnboundedReceiver<Outgoing>,
}

impl<S: Send + Sync + 'static> Peer<S> {
    /// A session with no handshake yet.
    pub fn connect(server: &Server<S>) -> Self {
        let (outbox, out) = tokio::sync::mpsc::unbounded_channel();
        Peer { session: Session::new(server, outbox), out }
    }

    /// A session made for stateless calls ([`Session::for_stateless_call`]).
    pub fn for_calls(server: &Server<S>) -> Self {
        let (outbox, out) = tokio::sync::mpsc::unbounded_channel();
        Peer { session: Session::for_stateless_call(server, std::sync::Arc::new(outbox)), out }
    }

    /// A session past the 2025-11-25 handshake with these client capabilities.
    pub fn initialized(server: &Server<S>, capabilities: Value) -> Self {
        Peer::initialized_as(server, "2025-11-25", capabilities)
    }

    /// A session past the handshake of `version` with these client capabilities.
    pub fn initialized_as(server: &Server<S>, version: &str, capabilities: Value) -> Self {
        let mut peer = Peer::connect(server);
        peer.send(json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": { "protocolVersion": version, "capabilities": capabilities } }));
        peer.session.handle_bytes(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, &CONTEXT);
        peer
    }

    pub fn send(&mut self, msg: Value) {
        self.send_with(msg, &CONTEXT);
    }

    /// Sends `msg` as if `context`'s transport had carried it.
    pub fn send_with(&mut self, msg: Value, context: &RequestContext) {
        self.session.handle_bytes(msg.to_string().as_bytes(), context);
    }

    pub async fn next(&mut self) -> (Value, Sent) {
        let msg =
            tokio::time::timeout(Duration::from_secs(5), self.out.recv()).await.expect("a message").expect("open");
        // Signals that carry no message (a cancelled request, a stream to close) come as null.
        let (json, sent) = split(msg);
        let json = if json.is_empty() { Value::Null } else { serde_json::from_str(&json).unwrap() };
        (json, sent)
    }

    /// The next message that is neither the handshake's answer nor a notification.
    pub async fn next_after_handshake(&mut self) -> Value {
        loop {
            let (msg, _) = self.next().await;
            if msg["id"] != 0 && msg.get("id").is_some() {
                return msg;
            }
        }
    }

    pub async fn response(&mut self, id: i64) -> Value {
        loop {
            let (msg, _) = self.next().await;
            if msg["id"] == id && msg.get("method").is_none() {
                return msg;
            }
        }
    }

    /// Whether any message at all arrives within `wait`.
    pub async fn quiet_for(&mut self, wait: Duration) -> bool {
        tokio::time::timeout(wait, self.out.recv()).await.is_err()
    }
}

impl<S: Send + Sync + 'static> Peer<S> {
    /// Every message sent so far, without waiting, whatever its text.
    pub fn received(&mut self) -> Vec<Outgoing> {
        std::iter::from_fn(|| self.out.try_recv().ok()).collect()
    }
}
