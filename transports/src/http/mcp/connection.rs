//! What `/mcp` keeps of one of `serve`'s connections between its requests, which hyper serves one
//! at a time: the session its last request named, and the session its last stateless call was
//! served by, which serves its next one.

use std::sync::{Arc, Mutex};

use tooltable::Server;
use tooltable::transport::Session;
use tooltable::transport::jsonrpc::RequestId;

use super::one_call::OneCall;
use super::registry::{LastSession, Registry, lock};

/// What a connection keeps between its requests.
pub(crate) struct Kept<S: Send + Sync + 'static> {
    pub(crate) last_session: LastSession<S>,
    /// The session of its last stateless call, when that call was answered as plain JSON.
    call_session: Mutex<Option<CallSession<S>>>,
}

impl<S: Send + Sync + 'static> Default for Kept<S> {
    fn default() -> Self {
        Kept { last_session: LastSession::default(), call_session: Mutex::new(None) }
    }
}

/// A session made for stateless calls, and the outbox its calls' POSTs wait on.
pub(crate) struct CallSession<S: Send + Sync + 'static> {
    pub(crate) session: Session<S>,
    pub(crate) one_call: Arc<OneCall>,
}

impl<S: Send + Sync + 'static> CallSession<S> {
    /// A session for the stateless call `id`: the one its connection `kept`, when it has one that
    /// nothing of its last call holds any more, else a new one. Making a session and dropping it
    /// cost a stateless call more than anything else it does that a session's call does not.
    pub(crate) fn for_call(
        kept: Option<&Kept<S>>,
        sessions: &Registry<S>,
        server: &Server<S>,
        id: &RequestId,
        streamable: bool,
    ) -> Self {
        if let Some(mut last) = kept.and_then(|k| lock(&k.call_session).take())
            && last.session.ready_for_another_call()
            && last.one_call.again(id.clone(), streamable)
        {
            return last;
        }
        let one_call = Arc::new(OneCall::new(id.clone(), streamable, sessions.stream_settings()));
        // In no registry: nothing reaches it but its calls, whose messages go to `one_call`.
        CallSession { session: Session::for_stateless_call(server, Arc::clone(&one_call)), one_call }
    }

    /// Leaves the session to its connection's next stateless call.
    pub(crate) fn keep(self, kept: Option<&Kept<S>>) {
        if let Some(kept) = kept {
            *lock(&kept.call_session) = Some(self);
        }
    }
}
