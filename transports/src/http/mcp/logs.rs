//! The events a session keeps so that a client reconnecting with `Last-Event-ID` gets what it
//! missed, bounded in bytes per session and per server: past a budget the oldest events go first,
//! and an event larger than a session's whole budget is delivered live but never kept. Nothing is
//! kept for a session no stream can resume: one without an id (a stateless request's), or one that
//! has not opened its standalone stream within a while of starting.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hyper::body::Bytes;

/// The standalone stream opened by GET.
pub(crate) const GET_STREAM: u64 = 0;
/// Events kept per stream, and finished streams kept for late reconnections.
pub(crate) const LOG_EVENTS: usize = 1024;
const LOG_STREAMS: usize = 64;
/// Before a session's first GET nobody can resume its standalone stream; only this much is held
/// for that first GET to pick up, and only for [`FIRST_GET_WINDOW`].
const HELD_BEFORE_FIRST_GET: usize = 64 * 1024;
/// How long after it starts a session's standalone-stream events wait for its first GET (a client
/// opens it right after `notifications/initialized`); past it a session without one holds nothing.
pub(crate) const FIRST_GET_WINDOW: Duration = Duration::from_secs(10);

/// Whether a client can ever resume a session's streams, and so whether events are kept.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Resumable {
    /// No GET can name the session (it has no id): nothing is kept.
    Never,
    /// A GET with `Last-Event-ID` can; standalone-stream events wait this long for the first GET.
    AfterFirstGet(Duration),
}

/// Bytes of kept events: each session's own bound, and one total shared by the whole server.
#[derive(Debug)]
pub(crate) struct LogBudget {
    per_session: usize,
    per_server: usize,
    used: AtomicUsize,
}

impl LogBudget {
    pub(crate) fn new(per_session: usize, per_server: usize) -> Self {
        LogBudget { per_session, per_server, used: AtomicUsize::new(0) }
    }

    fn take(&self, n: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| Some(used + n).filter(|&u| u <= self.per_server))
            .is_ok()
    }

    fn give_back(&self, n: usize) {
        self.used.fetch_sub(n, Ordering::AcqRel);
    }

    /// Bytes kept across the server.
    #[cfg(test)]
    pub(crate) fn used(&self) -> usize {
        self.used.load(Ordering::Acquire)
    }
}

#[derive(Default)]
pub(crate) struct StreamLog {
    pub events: VecDeque<(u64, Bytes)>,
    pub done: bool,
}

/// One session's kept events, by stream.
pub(crate) struct EventLogs {
    logs: HashMap<u64, StreamLog>,
    finished: VecDeque<u64>,
    bytes: usize,
    get_attached: bool,
    /// Whether events are kept at all.
    resumable: bool,
    /// Until the first GET: when standalone-stream events stop waiting for it.
    first_get_by: Instant,
    budget: Arc<LogBudget>,
}

impl EventLogs {
    pub(crate) fn new(budget: Arc<LogBudget>, resumable: Resumable) -> Self {
        // A session no GET can name keeps no log at all: it is made for one request.
        let (logs, resumable, window) = match resumable {
            Resumable::Never => (HashMap::new(), false, Duration::ZERO),
            Resumable::AfterFirstGet(window) => (HashMap::from([(GET_STREAM, StreamLog::default())]), true, window),
        };
        let first_get_by = Instant::now() + window;
        EventLogs { logs, finished: VecDeque::new(), bytes: 0, get_attached: false, resumable, first_get_by, budget }
    }

    pub(crate) fn get(&self, stream: u64) -> Option<&StreamLog> {
        self.logs.get(&stream)
    }

    pub(crate) fn open(&mut self, stream: u64) {
        if self.resumable {
            self.logs.insert(stream, StreamLog::default());
        }
    }

    /// The standalone stream was opened: from now on its client can resume it.
    pub(crate) fn attached_get(&mut self) {
        self.get_attached = true;
    }

    /// Past the window for a first GET, a session that has not opened its standalone stream lets
    /// go of the events held for it, and holds none from then on.
    pub(crate) fn release_unclaimed(&mut self, now: Instant) {
        if self.get_attached || now < self.first_get_by {
            return;
        }
        if let Some(log) = self.logs.get_mut(&GET_STREAM) {
            let held: usize = log.events.drain(..).map(|(_, frame)| frame.len()).sum();
            self.forget(held);
        }
    }

    /// Keeps an event for replay if the budgets allow, dropping the oldest kept events for room.
    pub(crate) fn record(&mut self, stream: u64, seq: u64, frame: &Bytes) {
        if !self.resumable {
            return;
        }
        let len = frame.len();
        let bound = if stream == GET_STREAM && !self.get_attached {
            let now = Instant::now();
            self.release_unclaimed(now);
            if now >= self.first_get_by {
                return;
            }
            self.budget.per_session.min(HELD_BEFORE_FIRST_GET)
        } else {
            self.budget.per_session
        };
        if len > bound {
            return;
        }
        while !(self.bytes + len <= bound && self.budget.take(len)) {
            if !self.drop_oldest() {
                return;
            }
        }
        self.bytes += len;
        let log = self.logs.entry(stream).or_default();
        log.events.push_back((seq, frame.clone()));
        if log.events.len() > LOG_EVENTS
            && let Some((_, old)) = log.events.pop_front()
        {
            self.forget(old.len());
        }
    }

    /// A POST stream ended; its log stays a while for late reconnections.
    pub(crate) fn finish(&mut self, stream: u64) {
        if !self.resumable {
            return;
        }
        if let Some(log) = self.logs.get_mut(&stream) {
            log.done = true;
        }
        self.finished.push_back(stream);
        if self.finished.len() > LOG_STREAMS
            && let Some(old) = self.finished.pop_front()
            && let Some(log) = self.logs.remove(&old)
        {
            self.forget(log.events.iter().map(|(_, f)| f.len()).sum());
        }
    }

    /// Drops the oldest kept event of any stream; false when none is kept.
    fn drop_oldest(&mut self) -> bool {
        let oldest = self.logs.values_mut().filter(|log| !log.events.is_empty()).min_by_key(|log| log.events[0].0);
        match oldest.and_then(|log| log.events.pop_front()) {
            Some((_, frame)) => {
                self.forget(frame.len());
                true
            }
            None => false,
        }
    }

    fn forget(&mut self, bytes: usize) {
        self.bytes -= bytes;
        self.budget.give_back(bytes);
    }
}

impl Drop for EventLogs {
    fn drop(&mut self) {
        self.budget.give_back(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(n: usize) -> Bytes {
        Bytes::from(vec![b'x'; n])
    }

    const WINDOW: Resumable = Resumable::AfterFirstGet(FIRST_GET_WINDOW);

    fn kept(logs: &EventLogs, stream: u64) -> Vec<u64> {
        logs.get(stream).map(|l| l.events.iter().map(|(seq, _)| *seq).collect()).unwrap_or_default()
    }

    #[test]
    fn a_session_keeps_its_newest_events_within_its_bytes() {
        let budget = Arc::new(LogBudget::new(1000, 1_000_000));
        let mut logs = EventLogs::new(Arc::clone(&budget), WINDOW);
        logs.open(1);
        for seq in 0..10 {
            logs.record(1, seq, &frame(300));
        }
        assert_eq!(kept(&logs, 1), [7, 8, 9]);
        logs.record(1, 10, &frame(1001));
        assert_eq!(kept(&logs, 1), [7, 8, 9], "an event over the whole budget is not kept");
        assert_eq!(budget.used(), 900);
        drop(logs);
        assert_eq!(budget.used(), 0, "an ended session gives its bytes back");
    }

    #[test]
    fn the_server_budget_is_shared_by_every_session() {
        let budget = Arc::new(LogBudget::new(1000, 1500));
        let mut a = EventLogs::new(Arc::clone(&budget), WINDOW);
        let mut b = EventLogs::new(Arc::clone(&budget), WINDOW);
        a.open(1);
        b.open(1);
        a.record(1, 0, &frame(1000));
        b.record(1, 0, &frame(400));
        b.record(1, 1, &frame(400));
        assert_eq!(kept(&b, 1), [1], "b makes room from its own events");
        assert!(budget.used() <= 1500);
        drop(a);
        b.record(1, 2, &frame(400));
        assert_eq!(kept(&b, 1), [1, 2]);
    }

    #[test]
    fn before_the_first_get_little_is_held() {
        let budget = Arc::new(LogBudget::new(1 << 20, 1 << 30));
        let mut logs = EventLogs::new(Arc::clone(&budget), WINDOW);
        for seq in 0..100 {
            logs.record(GET_STREAM, seq, &frame(1024));
        }
        assert_eq!(budget.used(), HELD_BEFORE_FIRST_GET);
        logs.attached_get();
        for seq in 100..200 {
            logs.record(GET_STREAM, seq, &frame(1024));
        }
        assert_eq!(budget.used(), 164 * 1024, "once resumable, the session's whole budget");
    }

    #[test]
    fn a_session_without_an_id_keeps_nothing() {
        let budget = Arc::new(LogBudget::new(1 << 20, 1 << 30));
        let mut logs = EventLogs::new(Arc::clone(&budget), Resumable::Never);
        logs.open(1);
        for seq in 0..10 {
            logs.record(1, seq, &frame(1024));
            logs.record(GET_STREAM, 100 + seq, &frame(1024));
        }
        logs.finish(1);
        assert_eq!((budget.used(), kept(&logs, 1), kept(&logs, GET_STREAM)), (0, vec![], vec![]));
    }

    #[test]
    fn a_session_that_opens_no_get_stream_in_time_holds_nothing() {
        let budget = Arc::new(LogBudget::new(1 << 20, 1 << 30));
        let mut logs = EventLogs::new(Arc::clone(&budget), WINDOW);
        logs.record(GET_STREAM, 0, &frame(1024));
        logs.release_unclaimed(Instant::now());
        assert_eq!(budget.used(), 1024, "held while a first GET may still come");
        logs.release_unclaimed(Instant::now() + FIRST_GET_WINDOW);
        assert_eq!((budget.used(), kept(&logs, GET_STREAM)), (0, vec![]), "let go once the window is over");
        let mut late = EventLogs::new(Arc::clone(&budget), Resumable::AfterFirstGet(Duration::ZERO));
        late.record(GET_STREAM, 0, &frame(1024));
        assert_eq!(budget.used(), 0, "nothing held past the window");
        late.attached_get();
        late.record(GET_STREAM, 1, &frame(1024));
        assert_eq!(kept(&late, GET_STREAM), [1], "a session with its stream open keeps events for resumption");
    }
}
