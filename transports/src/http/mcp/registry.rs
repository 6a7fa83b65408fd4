//! The live HTTP sessions, by `Mcp-Session-Id`: random ids from the operating system's CSPRNG,
//! and expiry of idle sessions.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tooltable::{Outbox, Outgoing, Server, Session};

use super::streams::Streams;

/// One MCP session served over HTTP.
pub struct HttpSession<S: Send + Sync + 'static> {
    pub id: String,
    pub session: Session<S>,
    pub streams: Arc<Mutex<Streams>>,
    last_seen: Mutex<Instant>,
}

impl<S: Send + Sync + 'static> HttpSession<S> {
    pub fn streams(&self) -> MutexGuard<'_, Streams> {
        lock(&self.streams)
    }
}

impl<S: Send + Sync + 'static> Drop for HttpSession<S> {
    fn drop(&mut self) {
        lock(&self.streams).close_all();
    }
}

/// Routes each message as it is made, so a call answered at once answers its POST without a hop
/// through another task.
struct RouteToStreams(Arc<Mutex<Streams>>);

impl Outbox for RouteToStreams {
    fn send(&self, message: Outgoing) {
        lock(&self.0).route(message);
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

pub struct Registry<S: Send + Sync + 'static> {
    sessions: Mutex<HashMap<String, Arc<HttpSession<S>>>>,
    idle: Duration,
    retry_ms: u64,
}

impl<S: Send + Sync + 'static> Registry<S> {
    pub fn new(idle: Duration, retry_ms: u64) -> Self {
        Registry { sessions: Mutex::new(HashMap::new()), idle, retry_ms }
    }

    /// A new session with a fresh id, its outgoing messages routed to its streams.
    pub fn create(&self, server: &Server<S>) -> std::io::Result<Arc<HttpSession<S>>> {
        let id = new_session_id()?;
        let streams = Arc::new(Mutex::new(Streams::new(self.retry_ms)));
        let session = Session::new(server, RouteToStreams(Arc::clone(&streams)));
        let http = Arc::new(HttpSession { id: id.clone(), session, streams, last_seen: Mutex::new(Instant::now()) });
        lock(&self.sessions).insert(id, Arc::clone(&http));
        Ok(http)
    }

    /// The session of that id, marked as just used.
    pub fn get(&self, id: &str) -> Option<Arc<HttpSession<S>>> {
        let session = lock(&self.sessions).get(id).cloned()?;
        *lock(&session.last_seen) = Instant::now();
        Some(session)
    }

    /// Ends a session; false when there was none.
    pub fn remove(&self, id: &str) -> bool {
        let removed = lock(&self.sessions).remove(id);
        if let Some(s) = &removed {
            end(s);
        }
        removed.is_some()
    }

    /// Ends sessions idle longer than the limit; returns how many. A session with an event stream
    /// open is not idle.
    pub fn expire(&self) -> usize {
        let now = Instant::now();
        let mut sessions = lock(&self.sessions);
        let before = sessions.len();
        sessions.retain(|_, s| {
            let live = {
                let mut last_seen = lock(&s.last_seen);
                if s.streams().has_open_stream() {
                    *last_seen = now;
                }
                now.duration_since(*last_seen) < self.idle
            };
            if !live {
                end(s);
            }
            live
        });
        before - sessions.len()
    }

    /// Ends every session (the end of a shutdown).
    pub fn clear(&self) {
        for (_, s) in lock(&self.sessions).drain() {
            end(&s);
        }
    }

    /// Ends the standalone streams, so that only requests in flight hold a shutdown.
    pub fn end_standalone_streams(&self) {
        for s in lock(&self.sessions).values() {
            s.streams().end_standalone();
        }
    }

    pub fn idle_limit(&self) -> Duration {
        self.idle
    }
}

/// Aborts a session's calls and answers the requests still waiting, so no POST hangs.
fn end<S: Send + Sync + 'static>(s: &HttpSession<S>) {
    s.session.close();
    s.streams().close_all();
}

/// 128 random bits as 32 hex digits: visible ASCII, as MCP requires.
fn new_session_id() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
