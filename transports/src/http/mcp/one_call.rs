//! The outbox of a session that serves one stateless `tools/call`: when the call's response is the
//! first message the session sends, it is the POST's `application/json` answer, handed over with
//! no event streams made for it. Anything before it (a notification, a log, a question) opens the
//! session's [`Streams`], which then route every message as they route any session's, the POST
//! waiting on them as on a session's streams. A call answered so leaves its outbox ready for the
//! next call of the same session ([`OneCall::again`]).

use std::sync::{Mutex, MutexGuard};

use tokio::sync::oneshot;
use tooltable::transport::jsonrpc::RequestId;
use tooltable::transport::{Destination, Outbox, Outgoing};

use super::logs::Resumable;
use super::streams::{FirstAnswer, Framing, StreamSettings, Streams};

/// The one request of a stateless call's session, and how its POST is answered.
pub(crate) struct OneCall {
    /// What its session's streams are made with, should its call need them.
    settings: StreamSettings,
    call: Mutex<Call>,
}

/// The call, and where its answer stands.
struct Call {
    id: RequestId,
    /// Whether its POST accepts event streams.
    streamable: bool,
    state: State,
}

enum State {
    /// Nothing sent, and the POST not yet waiting.
    Quiet,
    /// The POST waits for its answer.
    Waiting(oneshot::Sender<FirstAnswer>),
    /// The answer came before the POST waited for it.
    Answered(FirstAnswer),
    /// The answer is the POST's: nothing else has anywhere to go.
    Done,
    /// Something came before the response: the streams route everything, and the POST's answer
    /// is theirs (taken from here when it was not yet waiting). Boxed: few calls need them.
    Streams(Box<Streams>, Option<oneshot::Receiver<FirstAnswer>>),
}

impl OneCall {
    /// The outbox of the call `id`, whose POST accepts event streams when `streamable`.
    pub(crate) fn new(id: RequestId, streamable: bool, settings: StreamSettings) -> Self {
        OneCall { settings, call: Mutex::new(Call { id, streamable, state: State::Quiet }) }
    }

    /// Takes the call `id` next, when the last one was answered as plain JSON: nothing of it is
    /// left to route. False when it was not (its streams carry it still, or it never ended).
    pub(crate) fn again(&self, id: RequestId, streamable: bool) -> bool {
        let mut call = self.call();
        if !matches!(call.state, State::Done) {
            return false;
        }
        *call = Call { id, streamable, state: State::Quiet };
        true
    }

    /// The POST's answer, once the session has the call: `None` when the session closed first.
    pub(crate) async fn answer(&self) -> Option<FirstAnswer> {
        let rx = {
            let mut call = self.call();
            let state = &mut call.state;
            match std::mem::replace(state, State::Done) {
                State::Answered(answer) => return Some(answer),
                State::Quiet | State::Done | State::Waiting(_) => {
                    let (tx, rx) = oneshot::channel();
                    *state = State::Waiting(tx);
                    rx
                }
                State::Streams(streams, rx) => {
                    *state = State::Streams(streams, None);
                    rx?
                }
            }
        };
        rx.await.ok()
    }

    fn call(&self) -> MutexGuard<'_, Call> {
        self.call.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Call {
    /// The response or the cancellation of the call, first of all it sends.
    fn first(&mut self, answer: FirstAnswer) {
        match std::mem::replace(&mut self.state, State::Done) {
            State::Quiet => self.state = State::Answered(answer),
            State::Waiting(tx) => {
                let _ = tx.send(answer);
            }
            // Only one response to the one call: a later one has nowhere to go.
            State::Answered(first) => self.state = State::Answered(first),
            State::Done | State::Streams(..) => {}
        }
    }

    /// Opens the streams for a message that came before the response, and routes it there.
    fn open_streams_for(&mut self, settings: &StreamSettings, message: Outgoing) {
        let mut streams = Box::new(settings.streams(Framing::Bare, Resumable::Never));
        let pending = match std::mem::replace(&mut self.state, State::Done) {
            State::Quiet => Some(streams.expect(self.id.clone(), self.streamable)),
            State::Waiting(tx) => {
                streams.expect_answer(self.id.clone(), tx, self.streamable);
                None
            }
            // Answered already: what comes after the response has no stream to go to.
            other => {
                self.state = other;
                return;
            }
        };
        streams.route(message);
        self.state = State::Streams(streams, pending);
    }
}

/// A [`OneCall`] is its session's outbox.
impl Outbox for OneCall {
    fn send(&self, message: Outgoing) {
        let mut call = self.call();
        if let State::Streams(streams, _) = &mut call.state {
            return streams.route(message);
        }
        match message {
            Outgoing::Message { json, destination: Destination::Response(id) } if id == call.id => {
                call.first(FirstAnswer::Json(json));
            }
            Outgoing::Cancelled(id) if id == call.id => call.first(FirstAnswer::Cancelled),
            message => call.open_streams_for(&self.settings, message),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future as _;
    use std::sync::Arc;

    use super::super::logs::LogBudget;
    use super::*;

    fn call(streamable: bool) -> Arc<OneCall> {
        let logs = Arc::new(LogBudget::new(1 << 16, 1 << 20));
        Arc::new(OneCall::new(
            RequestId::Number(1),
            streamable,
            StreamSettings { retry_ms: 500, max_unread: 1 << 16, logs },
        ))
    }

    fn message(json: &str, destination: Destination) -> Outgoing {
        Outgoing::message(json.to_owned(), destination)
    }

    /// The answer, which the tests' calls have by the time it is asked for.
    fn answer(call: &OneCall) -> Option<FirstAnswer> {
        let mut answer = std::pin::pin!(call.answer());
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match answer.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(answer) => answer,
            std::task::Poll::Pending => panic!("no answer yet"),
        }
    }

    #[test]
    fn a_response_that_comes_first_is_the_json_answer() {
        let one = call(true);
        one.send(message("{\"r\":1}", Destination::Response(RequestId::Number(1))));
        assert!(matches!(answer(&one), Some(FirstAnswer::Json(j)) if j == "{\"r\":1}"));
    }

    #[test]
    fn a_message_before_the_response_opens_a_stream_that_carries_both() {
        let one = call(true);
        one.send(message("{\"n\":1}", Destination::During(RequestId::Number(1))));
        one.send(message("{\"r\":1}", Destination::Response(RequestId::Number(1))));
        let Some(FirstAnswer::Stream(mut events)) = answer(&one) else { panic!("a stream") };
        let frames: Vec<_> =
            std::iter::from_fn(|| events.try_recv()).map(|b| String::from_utf8(b.to_vec()).unwrap()).collect();
        assert_eq!(frames, ["event: message\ndata: {\"n\":1}\n\n", "event: message\ndata: {\"r\":1}\n\n"]);
    }

    #[test]
    fn without_event_streams_only_the_response_is_answered() {
        let one = call(false);
        one.send(message("{\"n\":1}", Destination::During(RequestId::Number(1))));
        one.send(message("{\"r\":1}", Destination::Response(RequestId::Number(1))));
        assert!(matches!(answer(&one), Some(FirstAnswer::Json(j)) if j == "{\"r\":1}"));
    }
}
