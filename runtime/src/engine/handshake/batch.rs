//! JSON-RPC batches (protocol revision 2025-03-26): the members are handled one by one as if sent
//! alone, and their responses, held back as they come, leave together as one array, in the order
//! of the requests, once the last request is answered (or cancelled).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::oneshot;

use crate::api::context::RequestContext;
use crate::api::lock;
use crate::engine::jsonrpc::{self, BatchMember, Incoming, RequestId, RpcError};
use crate::engine::outbox::{Destination, Outgoing};
use crate::engine::session::SessionCore;

/// Where a batch's answer goes: the array of its responses, or `None` when it had no request to
/// answer (only notifications and responses, or every request cancelled).
pub(crate) enum Deliver {
    /// To the session's outbox, as a message of the session (stdio).
    Outbox,
    /// To whoever holds the receiver (an HTTP POST); dropped unanswered if the session closes.
    Channel(oneshot::Sender<Option<String>>),
}

/// The batches whose requests are still running.
#[derive(Default)]
pub(crate) struct Batches {
    /// How many are open, read without the lock, so a session with none pays nothing per message.
    open: AtomicUsize,
    state: std::sync::Mutex<Open>,
}

#[derive(Default)]
struct Open {
    next: u64,
    member_of: BTreeMap<RequestId, u64>,
    batches: BTreeMap<u64, Collecting>,
}

struct Collecting {
    /// One per member that is answered: the error of a member that did not decode is there from
    /// the start, a request's response once it comes (or never, when it is cancelled).
    answers: Vec<Option<String>>,
    slot_of: BTreeMap<RequestId, usize>,
    deliver: Deliver,
}

impl Batches {
    /// Takes a response or a cancellation of a batch member; gives back any other message.
    /// Returns a finished batch's answer to deliver (outside the lock).
    pub(crate) fn divert(&self, msg: Outgoing) -> Result<Option<(Deliver, Option<String>)>, Outgoing> {
        if self.open.load(Ordering::Acquire) == 0 {
            return Err(msg);
        }
        let (Outgoing::Message { destination: Destination::Response(id), .. } | Outgoing::Cancelled(id)) = &msg else {
            return Err(msg);
        };
        let mut open = lock(&self.state);
        let Some(key) = open.member_of.remove(id) else { return Err(msg) };
        let Some(batch) = open.batches.get_mut(&key) else { return Ok(None) };
        let slot = batch.slot_of.remove(id);
        if let (Outgoing::Message { json, .. }, Some(slot)) = (msg, slot) {
            batch.answers[slot] = Some(json);
        }
        if !batch.slot_of.is_empty() {
            return Ok(None);
        }
        let done = open.batches.remove(&key).map(Collecting::finish);
        self.open.fetch_sub(1, Ordering::AcqRel);
        Ok(done)
    }

    /// Forgets every open batch: their receivers see the session closed.
    pub(crate) fn clear(&self) {
        let mut open = lock(&self.state);
        open.member_of.clear();
        let closed = std::mem::take(&mut open.batches).len();
        self.open.fetch_sub(closed, Ordering::AcqRel);
    }
}

impl Collecting {
    fn finish(self) -> (Deliver, Option<String>) {
        let answers: Vec<String> = self.answers.into_iter().flatten().collect();
        let text = (!answers.is_empty()).then(|| format!("[{}]", answers.join(",")));
        (self.deliver, text)
    }
}

impl<S: Send + Sync + 'static> SessionCore<S> {
    /// Handles the members of a batch in order; its answer goes where `deliver` says.
    pub(crate) fn batch(self: &Arc<Self>, members: Vec<BatchMember>, context: &RequestContext, deliver: Deliver) {
        if let Err(e) = self.check_batch_ids(&members) {
            return self.deliver(deliver, Some(jsonrpc::error(None, &e)));
        }
        let mut answers = Vec::new();
        let mut slot_of = BTreeMap::new();
        for member in &members {
            match member {
                Ok(Incoming::Request { id, .. }) => {
                    slot_of.insert(id.clone(), answers.len());
                    answers.push(None);
                }
                Err(e) => match self.undecodable_is_answered_by_the_session(e) {
                    Some(id) => {
                        slot_of.insert(id.clone(), answers.len());
                        answers.push(None);
                    }
                    None => answers.push(Some(jsonrpc::error(e.id.as_ref(), &e.error))),
                },
                Ok(_) => {}
            }
        }
        if slot_of.is_empty() {
            let done = Collecting { answers, slot_of, deliver }.finish();
            return self.deliver(done.0, done.1);
        }
        {
            let mut open = lock(&self.batches.state);
            let key = open.next;
            open.next += 1;
            for id in slot_of.keys() {
                open.member_of.insert(id.clone(), key);
            }
            open.batches.insert(key, Collecting { answers, slot_of, deliver });
            self.batches.open.fetch_add(1, Ordering::AcqRel);
        }
        for member in members {
            match member {
                Ok(msg) => self.handle(msg, context),
                // The others' errors are in the array already.
                Err(e) if self.undecodable_is_answered_by_the_session(&e).is_some() => self.answer_undecodable(&e),
                Err(_) => {}
            }
        }
    }

    /// A batch whose request ids repeat, or name a request still in flight, is refused whole: the
    /// responses could not be told apart.
    fn check_batch_ids(&self, members: &[BatchMember]) -> Result<(), RpcError> {
        let mut seen = HashSet::new();
        let ids = members.iter().filter_map(|m| match m {
            Ok(Incoming::Request { id, .. }) => Some(id),
            Ok(_) => None,
            Err(e) => self.undecodable_is_answered_by_the_session(e),
        });
        for id in ids {
            if !seen.insert(id) {
                return Err(RpcError::invalid_request(format!("request id {id} appears twice in the batch")));
            }
            if lock(&self.in_flight).contains_key(id) || lock(&self.listeners).contains_key(id) {
                return Err(RpcError::invalid_request(format!("request id {id} is already in flight")));
            }
        }
        Ok(())
    }

    pub(crate) fn deliver(&self, deliver: Deliver, answer: Option<String>) {
        match deliver {
            Deliver::Outbox => {
                if let Some(json) = answer {
                    self.send_to_outbox(Outgoing::message(json, Destination::Session));
                }
            }
            Deliver::Channel(tx) => {
                let _ = tx.send(answer);
            }
        }
    }
}
