//! Where a session's outgoing messages go over HTTP. A POSTed request waits for its first message:
//! the response alone becomes an `application/json` answer; anything before it opens an event
//! stream on that POST. Other messages go to the GET stream. Every event is logged per stream, so a
//! client that reconnects with `Last-Event-ID` gets exactly that stream's missed events. What an
//! event carries besides its message depends on the revision the session speaks ([`Framing`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use hyper::body::Bytes;
use tokio::sync::oneshot;
use tooltable::transport::jsonrpc::RequestId;
use tooltable::transport::{Destination, Outgoing, STATELESS_VERSIONS};

use super::logs::{EventLogs, GET_STREAM, LogBudget, Resumable};
use crate::http::event_channel::{self, EventReceiver, EventSender, SendError};

/// What a session's event streams carry besides its messages, by the revision it speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// Revisions before 2025-11-25: every event has an id and a message. Their clients parse each
    /// event's data as JSON, so no event goes without data.
    Ids,
    /// Revision 2025-11-25: every event has an id, and a new stream first sends a priming event
    /// (an id and `retry`, no data) that its client can resume from before any message came.
    IdsAndPriming,
    /// Revision 2026-07-28: streams are not resumable, so events carry no id.
    Bare,
}

impl Framing {
    /// The framing of a session that speaks `version`. Revisions are dates, which order as text.
    pub(crate) fn of(version: &str) -> Framing {
        if STATELESS_VERSIONS.contains(&version) {
            Framing::Bare
        } else if version >= "2025-11-25" {
            Framing::IdsAndPriming
        } else {
            Framing::Ids
        }
    }
}

/// How a POSTed request is answered.
pub(crate) enum FirstAnswer {
    Json(String),
    Stream(EventReceiver),
    /// The client cancelled it: no response will come.
    Cancelled,
}

struct Waiter {
    answer: oneshot::Sender<FirstAnswer>,
    streamable: bool,
}

/// The routing state of one HTTP session.
pub(crate) struct Streams {
    framing: Framing,
    retry_ms: u64,
    /// Bytes a stream's client may leave unread before the stream is closed.
    max_unread: usize,
    next_seq: u64,
    next_stream: u64,
    // By request id, ordered: a handful of entries, each request's registered and answered, need
    // no hashing (the session's calls in flight are held so too).
    waiting: BTreeMap<RequestId, Waiter>,
    /// The requests of JSON-RPC batches being answered, which the session answers together.
    held: BTreeSet<RequestId>,
    carriers: BTreeMap<RequestId, u64>,
    live: HashMap<u64, EventSender>,
    logs: EventLogs,
    /// GET-stream events from this sequence number on have reached no live GET stream; the next
    /// plain GET replays them from the log.
    undelivered_from: u64,
}

/// What a session's streams are made with: the server's limits and its budget of kept events.
pub(crate) struct StreamSettings {
    pub(crate) retry_ms: u64,
    pub(crate) max_unread: usize,
    pub(crate) logs: Arc<LogBudget>,
}

impl StreamSettings {
    /// A session's streams, framed and kept for replay as given.
    pub(crate) fn streams(&self, framing: Framing, resumable: Resumable) -> Streams {
        Streams::new(framing, self.retry_ms, self.max_unread, Arc::clone(&self.logs), resumable)
    }
}

impl Streams {
    pub(crate) fn new(
        framing: Framing,
        retry_ms: u64,
        max_unread: usize,
        budget: Arc<LogBudget>,
        resumable: Resumable,
    ) -> Self {
        Streams {
            framing,
            retry_ms,
            max_unread,
            next_seq: 0,
            next_stream: GET_STREAM + 1,
            waiting: BTreeMap::new(),
            held: BTreeSet::new(),
            carriers: BTreeMap::new(),
            live: HashMap::new(),
            logs: EventLogs::new(budget, resumable),
            undelivered_from: 0,
        }
    }

    /// The session negotiated its revision: the streams it opens from now on follow it.
    pub(crate) fn set_framing(&mut self, framing: Framing) {
        self.framing = framing;
    }

    /// Whether a request with this id is still being answered.
    pub(crate) fn is_pending(&self, id: &RequestId) -> bool {
        self.waiting.contains_key(id) || self.carriers.contains_key(id) || self.held.contains(id)
    }

    /// Holds the request ids of a batch while it is answered; the first id already pending, if
    /// one is, and nothing held.
    pub(crate) fn hold(&mut self, ids: &[RequestId]) -> Result<(), RequestId> {
        if let Some(id) = ids.iter().find(|id| self.is_pending(id)) {
            return Err(id.clone());
        }
        self.held.extend(ids.iter().cloned());
        Ok(())
    }

    /// The batch is answered (or its client gone).
    pub(crate) fn release(&mut self, ids: &[RequestId]) {
        for id in ids {
            self.held.remove(id);
        }
    }

    /// Registers a POSTed request before the session sees it; the receiver gets its answer.
    pub(crate) fn expect(&mut self, id: RequestId, streamable: bool) -> oneshot::Receiver<FirstAnswer> {
        let (answer, rx) = oneshot::channel();
        self.expect_answer(id, answer, streamable);
        rx
    }

    /// Registers a request whose POST waits on `answer` for it (see [`expect`](Self::expect)).
    pub(crate) fn expect_answer(&mut self, id: RequestId, answer: oneshot::Sender<FirstAnswer>, streamable: bool) {
        self.waiting.insert(id, Waiter { answer, streamable });
    }

    /// Sends one outgoing message where it belongs.
    pub(crate) fn route(&mut self, msg: Outgoing) {
        match msg {
            Outgoing::Message { json, destination: Destination::Response(id) } => {
                if let Some(waiter) = self.waiting.remove(&id) {
                    let _ = waiter.answer.send(FirstAnswer::Json(json));
                } else if let Some(stream) = self.carriers.remove(&id) {
                    self.emit(stream, &json);
                    self.finish(stream);
                } else {
                    self.emit(GET_STREAM, &json);
                }
            }
            Outgoing::Message { json, destination: Destination::During(id) } => {
                let stream = self.stream_for(&id).unwrap_or(GET_STREAM);
                self.emit(stream, &json);
            }
            Outgoing::Message { json, destination: Destination::Session } => self.emit(GET_STREAM, &json),
            Outgoing::CloseStream(id) => {
                // Its client resumes from an event id it holds. Without a priming event, a stream
                // that sent nothing (or no id) stays open: closed, its client could not resume it.
                let stream = match self.framing {
                    Framing::IdsAndPriming => self.stream_for(&id),
                    Framing::Ids => self.carriers.get(&id).copied(),
                    Framing::Bare => None,
                };
                if let Some(stream) = stream {
                    self.live.remove(&stream);
                }
            }
            Outgoing::Cancelled(id) => {
                if let Some(waiter) = self.waiting.remove(&id) {
                    let _ = waiter.answer.send(FirstAnswer::Cancelled);
                } else if let Some(stream) = self.carriers.remove(&id) {
                    self.finish(stream);
                }
            }
        }
    }

    /// The stream of a request, opening one on its POST when the client accepts event streams.
    fn stream_for(&mut self, id: &RequestId) -> Option<u64> {
        if let Some(&stream) = self.carriers.get(id) {
            return Some(stream);
        }
        if !self.waiting.get(id)?.streamable {
            return None;
        }
        let waiter = self.waiting.remove(id)?;
        let stream = self.next_stream;
        self.next_stream += 1;
        let (tx, rx) = event_channel::channel(self.max_unread);
        if waiter.answer.send(FirstAnswer::Stream(rx)).is_err() {
            return None;
        }
        if self.framing == Framing::IdsAndPriming {
            self.prime(&tx, stream);
        }
        self.live.insert(stream, tx);
        self.logs.open(stream);
        self.carriers.insert(id.clone(), stream);
        Some(stream)
    }

    /// The first event of a stream: an id to resume from and the reconnection delay, no data.
    fn prime(&mut self, tx: &EventSender, stream: u64) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let _ = tx.replay(Bytes::from(format!("id: {stream}-{seq}\nretry: {}\ndata: \n\n", self.retry_ms)));
    }

    fn emit(&mut self, stream: u64, json: &str) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let frame = match self.framing {
            Framing::Bare => Bytes::from(format!("event: message\ndata: {json}\n\n")),
            Framing::Ids | Framing::IdsAndPriming => {
                Bytes::from(format!("id: {stream}-{seq}\nevent: message\ndata: {json}\n\n"))
            }
        };
        self.logs.record(stream, seq, &frame);
        let Some(tx) = self.live.get(&stream) else { return };
        match tx.send(frame) {
            Ok(()) if stream == GET_STREAM => self.undelivered_from = seq + 1,
            Ok(()) => {}
            Err(SendError::Behind { unread }) => {
                // What it has queued still reaches it; the rest waits in the log for its resumption.
                tracing::warn!(
                    stream,
                    unread,
                    "an event stream's client fell behind by more than it may leave unread; closed the stream, \
                     the client resumes it with Last-Event-ID"
                );
                self.live.remove(&stream);
            }
            Err(SendError::Closed) => drop(self.live.remove(&stream)),
        }
    }

    /// A POST stream ends after its response; its log stays a while for late reconnections.
    fn finish(&mut self, stream: u64) {
        self.live.remove(&stream);
        self.logs.finish(stream);
    }

    /// A GET: resumes the stream named by `last_event_id` (replaying what came after it), or opens
    /// the standalone stream, replacing any earlier one.
    pub(crate) fn attach(&mut self, last_event_id: Option<&str>) -> EventReceiver {
        let (tx, rx) = event_channel::channel(self.max_unread);
        let resume = last_event_id
            .and_then(parse_event_id)
            .and_then(|(stream, after)| Some((stream, after, self.logs.get(stream)?)));
        match resume {
            Some((stream, after, log)) => {
                for (_, frame) in log.events.iter().filter(|(seq, _)| *seq > after) {
                    let _ = tx.replay(frame.clone());
                }
                if !log.done {
                    self.live.insert(stream, tx);
                }
                if stream == GET_STREAM {
                    // The client had everything up to `after`; what came after was just replayed.
                    self.undelivered_from = self.next_seq;
                }
            }
            None => {
                self.logs.attached_get();
                let log = self.logs.get(GET_STREAM).map(|log| &log.events);
                let undelivered = log.into_iter().flatten().filter(|(seq, _)| *seq >= self.undelivered_from);
                for (_, frame) in undelivered {
                    let _ = tx.replay(frame.clone());
                }
                // After the held events, not before: ids go in the order of the events, and
                // resuming from any of them, the priming event's included, misses none.
                if self.framing == Framing::IdsAndPriming {
                    self.prime(&tx, GET_STREAM);
                }
                self.undelivered_from = self.next_seq;
                self.live.insert(GET_STREAM, tx);
            }
        }
        rx
    }

    /// Lets go of the events held for a first GET that has not come in time.
    pub(crate) fn release_unclaimed(&mut self, now: std::time::Instant) {
        self.logs.release_unclaimed(now);
    }

    /// Whether the session may be ended to make room: no request in flight, no stream open.
    pub(crate) fn is_idle(&self) -> bool {
        self.waiting.is_empty() && self.carriers.is_empty() && self.held.is_empty() && !self.has_open_stream()
    }

    /// Whether a client is connected to one of the session's event streams: it counts as activity.
    pub(crate) fn has_open_stream(&self) -> bool {
        self.live.values().any(|tx| !tx.is_closed())
    }

    /// Ends every stream and fails every request still waiting (the session is gone).
    pub(crate) fn close_all(&mut self) {
        self.live.clear();
        self.waiting.clear();
    }

    /// Ends the standalone GET stream, which would otherwise hold a shutdown open forever.
    pub(crate) fn end_standalone(&mut self) {
        self.live.remove(&GET_STREAM);
    }
}

fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.trim().split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::super::logs::LOG_EVENTS;
    use super::*;

    /// The streams of a session of revision 2025-11-25.
    fn streams() -> Streams {
        framed(Framing::IdsAndPriming)
    }

    fn framed(framing: Framing) -> Streams {
        let resumable = Resumable::AfterFirstGet(crate::http::mcp::logs::FIRST_GET_WINDOW);
        Streams::new(framing, 500, 1 << 20, Arc::new(LogBudget::new(1 << 20, 1 << 30)), resumable)
    }

    /// The id of each event, and its data.
    fn ids_and_data(frames: &[String]) -> Vec<(Option<(u64, u64)>, String)> {
        let field = |frame: &str, name: &str| frame.lines().find_map(|l| l.strip_prefix(name)).map(str::to_owned);
        let event = |f: &String| (field(f, "id: ").and_then(|id| parse_event_id(&id)), field(f, "data: ").unwrap());
        frames.iter().map(event).collect()
    }

    fn msg(json: &str, destination: Destination) -> Outgoing {
        Outgoing::message(json.into(), destination)
    }

    fn drain(rx: &mut EventReceiver) -> Vec<String> {
        std::iter::from_fn(|| rx.try_recv()).map(|b| String::from_utf8(b.to_vec()).unwrap()).collect()
    }

    #[test]
    fn a_lone_response_is_answered_as_json() {
        let mut s = streams();
        let mut rx = s.expect(RequestId::Number(1), true);
        s.route(msg("{\"r\":1}", Destination::Response(RequestId::Number(1))));
        assert!(matches!(rx.try_recv(), Ok(FirstAnswer::Json(j)) if j == "{\"r\":1}"));
        assert!(!s.is_pending(&RequestId::Number(1)));
    }

    #[test]
    fn a_notification_first_opens_a_stream_that_ends_with_the_response() {
        let mut s = streams();
        let id = RequestId::Number(1);
        let mut rx = s.expect(id.clone(), true);
        s.route(msg("{\"n\":1}", Destination::During(id.clone())));
        let Ok(FirstAnswer::Stream(mut events)) = rx.try_recv() else { panic!("a stream") };
        s.route(msg("{\"r\":1}", Destination::Response(id.clone())));
        let frames = drain(&mut events);
        assert_eq!(frames[0], "id: 1-0\nretry: 500\ndata: \n\n");
        assert_eq!(frames[1], "id: 1-1\nevent: message\ndata: {\"n\":1}\n\n");
        assert_eq!(frames[2], "id: 1-2\nevent: message\ndata: {\"r\":1}\n\n");
        assert!(events.try_recv().is_none(), "the stream ended");
    }

    #[test]
    fn a_closed_stream_resumes_on_get_with_only_its_missed_events() {
        let mut s = streams();
        let id = RequestId::Number(7);
        let mut rx = s.expect(id.clone(), true);
        s.route(Outgoing::CloseStream(id.clone()));
        let Ok(FirstAnswer::Stream(mut first)) = rx.try_recv() else { panic!("a stream") };
        let priming = drain(&mut first);
        assert_eq!(priming, ["id: 1-0\nretry: 500\ndata: \n\n"]);
        s.route(msg("{\"other\":1}", Destination::Session));
        s.route(msg("{\"r\":7}", Destination::Response(id)));
        let mut resumed = s.attach(Some("1-0"));
        assert_eq!(drain(&mut resumed), ["id: 1-2\nevent: message\ndata: {\"r\":7}\n\n"]);
    }

    #[test]
    fn a_cancelled_request_lets_go_of_its_post() {
        let mut s = streams();
        let waiting = RequestId::Number(1);
        let mut rx = s.expect(waiting.clone(), true);
        s.route(Outgoing::Cancelled(waiting.clone()));
        assert!(matches!(rx.try_recv(), Ok(FirstAnswer::Cancelled)));
        let streaming = RequestId::Number(2);
        let mut rx = s.expect(streaming.clone(), true);
        s.route(msg("{\"n\":1}", Destination::During(streaming.clone())));
        let Ok(FirstAnswer::Stream(mut events)) = rx.try_recv() else { panic!("a stream") };
        s.route(Outgoing::Cancelled(streaming.clone()));
        assert_eq!(drain(&mut events).len(), 2, "priming and the notification, then the end");
        assert!(events.try_recv().is_none());
        assert!(!s.is_pending(&waiting) && !s.is_pending(&streaming));
    }

    #[test]
    fn get_stream_events_wait_for_the_first_get() {
        let mut s = streams();
        s.route(msg("{\"log\":1}", Destination::Session));
        let mut get = s.attach(None);
        let frames = drain(&mut get);
        assert_eq!(frames, ["id: 0-0\nevent: message\ndata: {\"log\":1}\n\n", "id: 0-1\nretry: 500\ndata: \n\n"]);
        let mut again = s.attach(None);
        assert_eq!(drain(&mut again).len(), 1, "delivered events are not sent twice");
    }

    #[test]
    fn the_priming_event_of_a_get_stream_comes_after_its_held_events_and_resumes_after_them() {
        let mut s = streams();
        s.route(msg("{\"log\":1}", Destination::Session));
        s.route(msg("{\"log\":2}", Destination::Session));
        let mut get = s.attach(None);
        let seen = ids_and_data(&drain(&mut get));
        let ids: Vec<(u64, u64)> = seen.iter().map(|(id, _)| id.unwrap()).collect();
        assert!(ids.windows(2).all(|w| w[0].1 < w[1].1), "ids in the order of the events: {ids:?}");
        assert_eq!(seen.last().unwrap().1, "", "the priming event last");
        drop(get);
        s.route(msg("{\"log\":3}", Destination::Session));
        for (i, (stream, seq)) in ids.iter().enumerate() {
            let mut resumed = s.attach(Some(&format!("{stream}-{seq}")));
            let replayed: Vec<String> = ids_and_data(&drain(&mut resumed)).into_iter().map(|(_, data)| data).collect();
            let mut expected: Vec<String> =
                seen[i + 1..].iter().map(|(_, d)| d.clone()).filter(|d| !d.is_empty()).collect();
            expected.push("{\"log\":3}".into());
            assert_eq!(replayed, expected, "resumed after {stream}-{seq}");
        }
    }

    #[test]
    fn before_2025_11_25_no_event_goes_without_data() {
        let mut s = framed(Framing::Ids);
        s.route(msg("{\"log\":1}", Destination::Session));
        let mut get = s.attach(None);
        assert_eq!(drain(&mut get), ["id: 0-0\nevent: message\ndata: {\"log\":1}\n\n"]);
        let id = RequestId::Number(1);
        let mut rx = s.expect(id.clone(), true);
        s.route(msg("{\"n\":1}", Destination::During(id.clone())));
        let Ok(FirstAnswer::Stream(mut events)) = rx.try_recv() else { panic!("a stream") };
        s.route(msg("{\"r\":1}", Destination::Response(id)));
        assert_eq!(
            drain(&mut events),
            ["id: 1-1\nevent: message\ndata: {\"n\":1}\n\n", "id: 1-2\nevent: message\ndata: {\"r\":1}\n\n"]
        );
        assert!(drain(&mut s.attach(None)).is_empty(), "a new GET stream opens with nothing");
    }

    #[test]
    fn before_2025_11_25_only_a_stream_that_sent_an_id_is_closed_early() {
        let mut s = framed(Framing::Ids);
        let quiet = RequestId::Number(1);
        let mut rx = s.expect(quiet.clone(), true);
        s.route(Outgoing::CloseStream(quiet.clone()));
        s.route(msg("{\"r\":1}", Destination::Response(quiet)));
        assert!(matches!(rx.try_recv(), Ok(FirstAnswer::Json(j)) if j == "{\"r\":1}"), "answered on its POST");
        let talking = RequestId::Number(2);
        let mut rx = s.expect(talking.clone(), true);
        s.route(msg("{\"n\":2}", Destination::During(talking.clone())));
        let Ok(FirstAnswer::Stream(mut events)) = rx.try_recv() else { panic!("a stream") };
        s.route(Outgoing::CloseStream(talking.clone()));
        s.route(msg("{\"r\":2}", Destination::Response(talking)));
        let sent = drain(&mut events);
        assert_eq!(sent, ["id: 1-0\nevent: message\ndata: {\"n\":2}\n\n"], "closed after its first event");
        assert_eq!(drain(&mut s.attach(Some("1-0"))), ["id: 1-1\nevent: message\ndata: {\"r\":2}\n\n"]);
    }

    #[test]
    fn a_stateless_stream_carries_messages_alone() {
        let mut s = framed(Framing::Bare);
        let id = RequestId::Number(1);
        let mut rx = s.expect(id.clone(), true);
        s.route(msg("{\"n\":1}", Destination::During(id.clone())));
        s.route(Outgoing::CloseStream(id.clone()));
        let Ok(FirstAnswer::Stream(mut events)) = rx.try_recv() else { panic!("a stream") };
        s.route(msg("{\"r\":1}", Destination::Response(id)));
        assert_eq!(drain(&mut events), ["event: message\ndata: {\"n\":1}\n\n", "event: message\ndata: {\"r\":1}\n\n"]);
    }

    #[test]
    fn framing_follows_the_revision() {
        assert_eq!(Framing::of("2024-11-05"), Framing::Ids);
        assert_eq!(Framing::of("2025-03-26"), Framing::Ids);
        assert_eq!(Framing::of("2025-06-18"), Framing::Ids);
        assert_eq!(Framing::of("2025-11-25"), Framing::IdsAndPriming);
        assert_eq!(Framing::of("2026-07-28"), Framing::Bare);
    }

    #[test]
    fn events_replayed_on_resume_are_not_sent_again_by_a_plain_get() {
        let mut s = streams();
        let first = s.attach(None);
        drop(first);
        s.route(msg("{\"log\":1}", Destination::Session));
        s.route(msg("{\"log\":2}", Destination::Session));
        let mut resumed = s.attach(Some("0-0"));
        let replayed = drain(&mut resumed);
        assert_eq!(replayed.len(), 2, "both missed events: {replayed:?}");
        drop(resumed);
        s.route(msg("{\"log\":3}", Destination::Session));
        let mut plain = s.attach(None);
        let frames = drain(&mut plain);
        assert_eq!(frames.len(), 2, "only the event no stream took, then priming: {frames:?}");
        assert!(frames[0].contains("{\"log\":3}"));
        for frame in &frames {
            assert!(!replayed.contains(frame), "sent twice: {frame:?}");
        }
    }

    #[test]
    fn a_stream_whose_client_falls_behind_is_closed_and_resumes_from_the_log() {
        let resumable = Resumable::AfterFirstGet(crate::http::mcp::logs::FIRST_GET_WINDOW);
        let budget = Arc::new(LogBudget::new(1 << 20, 1 << 30));
        let mut s = Streams::new(Framing::IdsAndPriming, 500, 400, budget, resumable);
        let mut get = s.attach(None);
        let pad = "x".repeat(100);
        for i in 0..5 {
            s.route(msg(&format!("{{\"log\":{i},\"pad\":\"{pad}\"}}"), Destination::Session));
        }
        assert!(!s.has_open_stream(), "closed once its client was more than 400 bytes behind");
        let queued = drain(&mut get);
        assert_eq!(queued.len(), 3, "priming and what fitted, still delivered: {queued:?}");
        let last = queued[2].lines().next().unwrap().strip_prefix("id: ").unwrap();
        let mut resumed = s.attach(Some(last));
        let rest = drain(&mut resumed);
        assert_eq!(rest.len(), 3, "the events it missed, from the log: {rest:?}");
        assert!(rest[0].contains("\"log\":2") && rest[2].contains("\"log\":4"));
        assert!(s.has_open_stream(), "the resumed stream is live");
    }

    #[test]
    fn held_get_stream_events_are_bounded_by_the_log() {
        let mut s = streams();
        for i in 0..=LOG_EVENTS {
            s.route(msg(&format!("{{\"log\":{i}}}"), Destination::Session));
        }
        let mut get = s.attach(None);
        let frames = drain(&mut get);
        assert_eq!(frames.len(), LOG_EVENTS + 1, "the newest held events, then priming");
        assert!(frames[0].contains("{\"log\":1}"), "the oldest was dropped: {}", frames[0]);
    }

    #[test]
    fn without_event_streams_notifications_go_to_the_get_stream() {
        let mut s = streams();
        let mut get = s.attach(None);
        let id = RequestId::Number(2);
        let mut rx = s.expect(id.clone(), false);
        s.route(msg("{\"n\":2}", Destination::During(id.clone())));
        s.route(msg("{\"r\":2}", Destination::Response(id)));
        assert!(matches!(rx.try_recv(), Ok(FirstAnswer::Json(_))));
        let frames = drain(&mut get);
        assert_eq!(frames.len(), 2, "priming and the notification: {frames:?}");
        assert!(frames[1].contains("{\"n\":2}"));
    }
}
