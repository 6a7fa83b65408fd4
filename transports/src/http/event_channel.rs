//! The channel that feeds one open event stream, bounded in the bytes its client has not read
//! yet. Sending never waits (a session routes its messages from inside calls): an event that
//! would put the reader past the bound is refused, and the stream's owner closes the stream; the
//! events are in the session's log, so the client resumes with `Last-Event-ID`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use hyper::body::Bytes;
use tokio::sync::mpsc;

/// Why an event was not queued.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum SendError {
    /// The client has this many bytes still unread, and the event would take it past the bound.
    Behind { unread: usize },
    /// The stream is gone.
    Closed,
}

/// A channel whose reader may lag at most `bound` bytes behind (an event larger than the bound
/// still passes when nothing else waits).
pub(super) fn channel(bound: usize) -> (EventSender, EventReceiver) {
    let (tx, rx) = mpsc::unbounded_channel();
    let unread = Arc::new(AtomicUsize::new(0));
    (EventSender { tx, unread: Arc::clone(&unread), bound }, EventReceiver { rx, unread })
}

#[derive(Debug)]
pub(super) struct EventSender {
    tx: mpsc::UnboundedSender<Bytes>,
    unread: Arc<AtomicUsize>,
    bound: usize,
}

impl EventSender {
    /// Queues a live event, unless the reader is too far behind.
    pub(super) fn send(&self, frame: Bytes) -> Result<(), SendError> {
        let unread = self.unread.load(Ordering::Acquire);
        if unread > 0 && unread + frame.len() > self.bound {
            return Err(SendError::Behind { unread });
        }
        self.replay(frame)
    }

    /// Queues an event whatever the reader's lag: the priming event, and a replay from the log,
    /// which the log's own budget bounds.
    pub(super) fn replay(&self, frame: Bytes) -> Result<(), SendError> {
        let len = frame.len();
        self.unread.fetch_add(len, Ordering::AcqRel);
        self.tx.send(frame).map_err(|_| {
            self.unread.fetch_sub(len, Ordering::AcqRel);
            SendError::Closed
        })
    }

    pub(super) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

#[derive(Debug)]
pub(crate) struct EventReceiver {
    rx: mpsc::UnboundedReceiver<Bytes>,
    unread: Arc<AtomicUsize>,
}

impl EventReceiver {
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        self.rx.poll_recv(cx).map(|frame| frame.inspect(|f| self.taken(f)))
    }

    /// The next event if one is queued, without waiting.
    #[cfg(test)]
    pub(crate) fn try_recv(&mut self) -> Option<Bytes> {
        self.rx.try_recv().ok().inspect(|f| self.taken(f))
    }

    fn taken(&self, frame: &Bytes) {
        self.unread.fetch_sub(frame.len(), Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_may_lag_up_to_the_bound() {
        let (tx, mut rx) = channel(10);
        assert_eq!(tx.send(Bytes::from_static(b"123456")), Ok(()));
        assert_eq!(tx.send(Bytes::from_static(b"1234")), Ok(()));
        assert_eq!(tx.send(Bytes::from_static(b"1")), Err(SendError::Behind { unread: 10 }));
        assert_eq!(rx.try_recv().as_deref(), Some(&b"123456"[..]));
        assert_eq!(tx.send(Bytes::from_static(b"1")), Ok(()), "room again once read");
        while rx.try_recv().is_some() {}
        assert_eq!(tx.send(Bytes::from(vec![0; 50])), Ok(()), "one large event passes an empty queue");
        drop(rx);
        assert_eq!(tx.send(Bytes::from_static(b"1")), Err(SendError::Behind { unread: 50 }));
        assert_eq!(tx.replay(Bytes::from_static(b"1")), Err(SendError::Closed));
    }
}
