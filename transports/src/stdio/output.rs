//! Standard output as a session's outbox: each message is written by the thread that makes it,
//! at once, one `write` per line, and never blocks. What the pipe cannot take yet waits in a
//! backlog that a flusher thread writes out, in order, as the client reads; the reader of stdin
//! waits while the backlog is over its bound, so a client that never reads cannot make it grow
//! without end. A watcher thread notices the client closing its end at once, not at the next
//! write, so the calls still running can be stopped.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tooltable::transport::{Outbox, Outgoing};

use super::fd::{self, NonBlocking};

/// The writing end; clones share one backlog.
#[derive(Clone)]
pub(super) struct LineSink(Arc<Shared>);

struct Shared {
    out: NonBlocking,
    state: Mutex<State>,
    /// Signalled when the backlog grows or shrinks, or the sink closes.
    changed: Condvar,
    /// The backlog's length, readable without the lock.
    unread: AtomicUsize,
    /// Set once a write failed or the client closed its end, readable without the lock (the
    /// reader of stdin asks before every line).
    broken: AtomicBool,
    /// Called once, from the watcher thread, when the client closes its end.
    on_hangup: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

/// How often the watcher wakes to see whether the sink is finished.
const WATCH_MS: libc::c_int = 1000;

#[derive(Default)]
struct State {
    backlog: Vec<u8>,
    /// The first write error; later messages are dropped, and `finish` reports it.
    error: Option<io::Error>,
    /// `finish` was called: later messages are dropped, and the flusher stops once it is done.
    closed: bool,
    /// The client closed its end: a message still to write is an error.
    hung_up: bool,
}

fn lost() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the client closed stdout before every answer was written")
}

impl LineSink {
    /// Puts `fd` in non-blocking mode (until the sink is dropped) and starts the flusher.
    pub(super) fn open(fd: RawFd) -> io::Result<LineSink> {
        let shared = Arc::new(Shared {
            out: NonBlocking::set(fd)?,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            unread: AtomicUsize::new(0),
            broken: AtomicBool::new(false),
            on_hangup: Mutex::new(None),
        });
        let flusher = Arc::clone(&shared);
        std::thread::Builder::new().name("stdout-flusher".into()).spawn(move || flusher.flush_backlog())?;
        let watcher = Arc::clone(&shared);
        std::thread::Builder::new().name("stdout-watcher".into()).spawn(move || watcher.watch_hangup())?;
        Ok(LineSink(shared))
    }

    /// Runs `f` once the client closes its end of the descriptor (not when a write finds it
    /// closed: the writer may hold locks `f` needs).
    pub(super) fn on_hangup(&self, f: impl FnOnce() + Send + 'static) {
        *self.0.on_hangup.lock().unwrap_or_else(|p| p.into_inner()) = Some(Box::new(f));
    }

    /// Returns once at most `bound` bytes wait for the client to read them (or writing failed).
    pub(super) fn wait_for_room(&self, bound: usize) {
        if self.0.unread.load(Ordering::Acquire) <= bound {
            return;
        }
        let mut state = self.0.lock();
        while state.backlog.len() > bound && state.error.is_none() && !state.closed && !state.hung_up {
            state = self.0.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Whether writing failed (the client closed its end of stdout): nothing more can be answered.
    pub(super) fn is_broken(&self) -> bool {
        self.0.broken.load(Ordering::Acquire)
    }

    /// Stops taking messages, waits up to `grace` for the backlog to be read, and reports the
    /// first write error, or a timeout when the client stopped reading.
    pub(super) fn finish(&self, grace: Duration) -> io::Result<()> {
        let deadline = Instant::now() + grace;
        let mut state = self.0.lock();
        state.closed = true;
        self.0.changed.notify_all();
        while !state.backlog.is_empty() && state.error.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let unread = state.backlog.len();
                state.backlog.clear();
                self.0.unread.store(0, Ordering::Release);
                self.0.changed.notify_all();
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("the client did not read the last {unread} bytes of output within {grace:?}"),
                ));
            }
            state = self.0.changed.wait_timeout(state, left).unwrap_or_else(|p| p.into_inner()).0;
        }
        state.error.take().map_or(Ok(()), Err)
    }
}

impl Outbox for LineSink {
    fn send(&self, outgoing: Outgoing) {
        // A pipe has no streams to close or let go of.
        let Outgoing::Message { json, .. } = outgoing else { return };
        let mut line = json.into_bytes();
        line.push(b'\n');
        let mut state = self.0.lock();
        if state.hung_up && state.error.is_none() {
            state.error = Some(lost());
        }
        if state.error.is_some() || state.closed {
            return;
        }
        if !state.backlog.is_empty() {
            // Behind a backlog: the flusher writes it, keeping the order.
            state.backlog.extend_from_slice(&line);
            return self.0.unread.store(state.backlog.len(), Ordering::Release);
        }
        match write_now(self.0.out.fd(), &line) {
            Ok(n) if n == line.len() => {}
            Ok(n) => {
                state.backlog.extend_from_slice(&line[n..]);
                self.0.unread.store(state.backlog.len(), Ordering::Release);
                self.0.changed.notify_all();
            }
            Err(e) => self.0.fail(&mut state, e),
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a write's failure: later messages are dropped, and reading stops.
    fn fail(&self, state: &mut State, e: io::Error) {
        state.error = Some(e);
        self.broken.store(true, Ordering::Release);
    }

    /// Waits for the descriptor to hang up, until the sink is finished; then marks it broken and
    /// tells whoever asked.
    fn watch_hangup(&self) {
        let fd = self.out.fd();
        loop {
            if self.lock().closed {
                return;
            }
            match fd::hung_up(fd, WATCH_MS) {
                Ok(false) => continue,
                Ok(true) => break,
                Err(e) => return tracing::debug!("stopped watching stdout: {e}"),
            }
        }
        {
            let mut state = self.lock();
            if state.closed {
                return;
            }
            state.hung_up = true;
            self.broken.store(true, Ordering::Release);
            if !state.backlog.is_empty() && state.error.is_none() {
                state.error = Some(lost());
            }
            self.changed.notify_all();
        }
        let hangup = self.on_hangup.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(f) = hangup {
            f();
        }
    }

    fn flush_backlog(&self) {
        let fd = self.out.fd();
        let mut state = self.lock();
        loop {
            while state.backlog.is_empty() && !state.closed {
                state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
            }
            if state.backlog.is_empty() || state.error.is_some() {
                return;
            }
            drop(state);
            // Bounded, so a sink given up on (the backlog cleared by `finish`) lets this go.
            let ready = fd::wait(fd, libc::POLLOUT, 200);
            state = self.lock();
            let written = ready.and_then(|()| write_now(fd, &state.backlog));
            match written {
                Ok(n) => drop(state.backlog.drain(..n)),
                Err(e) => self.fail(&mut state, e),
            }
            self.unread.store(state.backlog.len(), Ordering::Release);
            self.changed.notify_all();
        }
    }
}

/// Writes as much of `data` as the descriptor takes without blocking.
fn write_now(fd: RawFd, data: &[u8]) -> io::Result<usize> {
    let mut written = 0;
    while written < data.len() {
        match fd::write(fd, &data[written..]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => written += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) => return Err(e),
        }
    }
    Ok(written)
}
