//! The open connections under the cap, and which of them have a request in flight. At the cap, the
//! connection idle longest (waiting for a request: silent, sending its head slowly, or kept alive
//! between requests) is closed to make room, or failing that the one waiting longest for a request
//! body still arriving; so connections that send nothing, or send slowly, cannot lock normal
//! clients out. Only when every connection has a request being answered is a new one refused.
//! A connection that waits too long for a request's head is closed too ([`Slots::close_late_heads`]).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::body::{Body, Frame, SizeHint};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// How long a new connection waits for the one closed for it to let go of its slot.
const EVICTION_WAIT: Duration = Duration::from_millis(200);

pub(super) struct Slots {
    free: Arc<Semaphore>,
    open: Mutex<HashMap<u64, Arc<Connection>>>,
    /// Set (under `open`'s lock) once the server shuts down: a connection placed from then on is
    /// closed at once.
    shutting_down: AtomicBool,
    next_id: AtomicU64,
    epoch: Instant,
}

/// One open connection, as the cap sees it.
pub(super) struct Connection {
    id: u64,
    in_flight: AtomicUsize,
    /// Requests in flight whose body is still arriving.
    receiving: AtomicUsize,
    /// Microseconds since the epoch at which its last request ended (or it opened).
    idle_since: AtomicU64,
    closing: Notify,
    /// Why it was closed from outside, once it was.
    closed_because: OnceLock<Closed>,
    epoch: Instant,
}

/// Why a connection was closed from outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Closed {
    /// It was idle longest when the cap was reached.
    ForRoom,
    /// Its request's head did not come within the header timeout.
    LateHead,
    /// The server is shutting down: the request in flight is answered, then the connection
    /// closes.
    Shutdown,
}

/// A connection's place under the cap, given back when it drops.
pub(super) struct Slot {
    slots: Arc<Slots>,
    pub connection: Arc<Connection>,
    _permit: OwnedSemaphorePermit,
}

impl Slots {
    pub(super) fn new(cap: usize) -> Arc<Self> {
        Arc::new(Slots {
            free: Arc::new(Semaphore::new(cap)),
            open: Mutex::new(HashMap::new()),
            shutting_down: AtomicBool::new(false),
            next_id: AtomicU64::new(0),
            epoch: Instant::now(),
        })
    }

    /// A slot for a new connection: a free one, or the one of the connection idle longest, closed
    /// for it; `None` when every connection has a request in flight.
    pub(super) async fn claim(self: &Arc<Self>) -> Option<Slot> {
        if let Ok(permit) = Arc::clone(&self.free).try_acquire_owned() {
            return Some(self.place(permit));
        }
        let idle_longest = {
            let mut open = self.lock();
            let id = open
                .values()
                .filter(|c| c.in_flight.load(Ordering::Acquire) == c.receiving.load(Ordering::Acquire))
                .min_by_key(|c| (c.in_flight.load(Ordering::Acquire) > 0, c.idle_since()))
                .map(|c| c.id)?;
            open.remove(&id)?
        };
        idle_longest.close(Closed::ForRoom);
        let permit = tokio::time::timeout(EVICTION_WAIT, Arc::clone(&self.free).acquire_owned()).await.ok()?.ok()?;
        Some(self.place(permit))
    }

    /// Closes the connections that have waited `limit` or longer for a request's head, counted
    /// from when they opened or their last response ended: silent clients, clients sending their
    /// head slowly, and kept-alive connections left idle. One sweep serves every connection, where
    /// a timer per request would be set and cleared on every request.
    pub(super) fn close_late_heads(&self, limit: Duration) {
        let now = micros_since(self.epoch);
        let limit = u64::try_from(limit.as_micros()).unwrap_or(u64::MAX);
        for connection in self.lock().values() {
            // In flight first: a response's end stores the time before it counts down.
            let waiting = connection.in_flight.load(Ordering::Acquire) == 0;
            if waiting && now.saturating_sub(connection.idle_since()) >= limit {
                connection.close(Closed::LateHead);
            }
        }
    }

    /// Closes every connection for the shutdown, and every connection placed from now on.
    pub(super) fn shut_down(&self) {
        let open = self.lock();
        self.shutting_down.store(true, Ordering::Release);
        for connection in open.values() {
            connection.close(Closed::Shutdown);
        }
    }

    fn place(self: &Arc<Self>, permit: OwnedSemaphorePermit) -> Slot {
        let connection = Arc::new(Connection {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            in_flight: AtomicUsize::new(0),
            receiving: AtomicUsize::new(0),
            idle_since: AtomicU64::new(0),
            closing: Notify::new(),
            closed_because: OnceLock::new(),
            epoch: self.epoch,
        });
        connection.mark_idle();
        let mut open = self.lock();
        if self.shutting_down.load(Ordering::Acquire) {
            connection.close(Closed::Shutdown);
        }
        open.insert(connection.id, Arc::clone(&connection));
        drop(open);
        Slot { slots: Arc::clone(self), connection, _permit: permit }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Connection>>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots.lock().remove(&self.connection.id);
    }
}

impl Connection {
    /// Runs `work` (the connection's serving) to its end, or until the connection is closed from
    /// outside: the reason, `work` left unfinished. The close is polled only once it was made:
    /// polling a `Notify` on every wake of a busy connection cost more than the rest of the
    /// connection's bookkeeping.
    pub(super) async fn until_closed<F: Future + Unpin>(&self, mut work: F) -> Result<F::Output, Closed> {
        let mut closed = std::pin::pin!(self.closing.notified());
        let mut waiting = false;
        std::future::poll_fn(|cx| {
            // The first poll leaves the task's waker with the notification; `close` records its
            // reason before it notifies, so the task, woken, finds the reason set.
            if !waiting || self.closed_because.get().is_some() {
                waiting = true;
                if closed.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Err(self.closed_because.get().copied().unwrap_or(Closed::ForRoom)));
                }
            }
            Pin::new(&mut work).poll(cx).map(Ok)
        })
        .await
    }

    fn close(&self, because: Closed) {
        let _ = self.closed_because.set(because);
        self.closing.notify_one();
    }

    /// A request began: it is in flight until the guard (or the response body it is moved into)
    /// is dropped.
    pub(super) fn begin(self: &Arc<Self>) -> Busy {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        Busy(Arc::clone(self))
    }

    /// A request's body, counted as still arriving until it ends (or is dropped unread).
    pub(super) fn receive<B: Body>(self: &Arc<Self>, body: B) -> Receiving<B> {
        if body.is_end_stream() {
            return Receiving { body, connection: None };
        }
        self.receiving.fetch_add(1, Ordering::AcqRel);
        Receiving { body, connection: Some(Arc::clone(self)) }
    }

    fn mark_idle(&self) {
        self.idle_since.store(micros_since(self.epoch), Ordering::Release);
    }

    fn idle_since(&self) -> u64 {
        self.idle_since.load(Ordering::Acquire)
    }
}

/// Microseconds from `epoch` to now.
fn micros_since(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// A request in flight on its connection, until dropped.
pub(super) struct Busy(Arc<Connection>);

impl Busy {
    /// Keeps the request in flight until its response body is sent (or dropped).
    pub(super) fn carrying<B>(self, body: B) -> InFlight<B> {
        InFlight { body, _busy: self }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        // The time first, then the count: a sweep that sees no request in flight sees when the
        // last one ended.
        if self.0.in_flight.load(Ordering::Acquire) == 1 {
            self.0.mark_idle();
        }
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body whose request counts as in flight until the body is sent (or dropped).
pub(super) struct InFlight<B> {
    body: B,
    _busy: Busy,
}

impl<B: Body + Unpin> Body for InFlight<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A request body; while it is still arriving, its connection may be closed to make room.
pub(super) struct Receiving<B> {
    body: B,
    connection: Option<Arc<Connection>>,
}

impl<B> Receiving<B> {
    fn received(&mut self) {
        if let Some(connection) = self.connection.take() {
            connection.receiving.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl<B> Drop for Receiving<B> {
    fn drop(&mut self) {
        self.received();
    }
}

impl<B: Body + Unpin> Body for Receiving<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        if matches!(polled, Poll::Ready(None | Some(Err(_)))) || this.body.is_end_stream() {
            this.received();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claims a slot at the cap; `victim` lets go of its own once told to close.
    async fn claim_past(slots: &Arc<Slots>, victim: Slot) -> Option<Slot> {
        let claiming = tokio::spawn({
            let slots = Arc::clone(slots);
            async move { slots.claim().await }
        });
        assert_eq!(victim.connection.until_closed(std::future::pending::<()>()).await, Err(Closed::ForRoom));
        drop(victim);
        claiming.await.unwrap()
    }

    /// A cap of two, both taken.
    async fn full() -> (Arc<Slots>, Slot, Slot) {
        let slots = Slots::new(2);
        let first = slots.claim().await.expect("a free slot");
        let second = slots.claim().await.expect("a free slot");
        (slots, first, second)
    }

    #[tokio::test]
    async fn at_the_cap_the_connection_idle_longest_makes_room() {
        let (slots, oldest, busy) = full().await;
        let request = busy.connection.begin();
        let newest = claim_past(&slots, oldest).await.expect("the idle connection's slot went to the new one");
        let second = newest.connection.begin();
        assert!(slots.claim().await.is_none(), "every connection is busy: nothing to close");
        drop((request, second));
    }

    #[tokio::test]
    async fn a_shutdown_closes_the_open_connections_and_the_ones_placed_after_it() {
        let slots = Slots::new(4);
        let open = slots.claim().await.expect("a free slot");
        let served = open.connection.until_closed(std::future::ready(7)).await;
        assert_eq!(served, Ok(7), "work that ends is not cut short");
        slots.shut_down();
        let waiting = open.connection.until_closed(std::future::pending::<()>()).await;
        assert_eq!(waiting, Err(Closed::Shutdown));
        let late = slots.claim().await.expect("a free slot");
        assert_eq!(late.connection.until_closed(std::future::pending::<()>()).await, Err(Closed::Shutdown));
    }

    #[tokio::test]
    async fn a_close_wakes_the_connection_serving() {
        let slots = Slots::new(1);
        let slot = slots.claim().await.expect("a free slot");
        let connection = Arc::clone(&slot.connection);
        let serving = tokio::spawn(async move { connection.until_closed(std::future::pending::<()>()).await });
        tokio::task::yield_now().await;
        slots.close_late_heads(Duration::ZERO);
        assert_eq!(serving.await.unwrap(), Err(Closed::LateHead));
    }

    #[tokio::test]
    async fn a_connection_still_receiving_a_body_makes_room_when_none_is_idle() {
        let (slots, answering, receiving) = full().await;
        let _answered = answering.connection.begin();
        let _request = receiving.connection.begin();
        // A body not read yet is still arriving.
        let _body = receiving.connection.receive(http_body_util::Full::new(hyper::body::Bytes::from("{")));
        let claimed = claim_past(&slots, receiving).await;
        assert!(claimed.is_some(), "the slow body's connection made room, not the one being answered");
    }
}
