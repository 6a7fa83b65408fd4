//! The live HTTP sessions, by `Mcp-Session-Id`: random ids from the operating system's CSPRNG,
//! expiry of idle sessions, and caps per server and per client address.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};
use std::time::{Duration, Instant};

use tooltable::Server;
use tooltable::transport::{Outbox, Outgoing, Session};

use super::listens::OpenListens;
use super::logs::{FIRST_GET_WINDOW, LogBudget, Resumable};
use super::streams::{Framing, StreamSettings, Streams};

/// One MCP session served over HTTP.
pub(crate) struct HttpSession<S: Send + Sync + 'static> {
    pub id: String,
    /// The address of the client that opened it, for the per-client cap.
    pub client: IpAddr,
    pub session: Session<S>,
    pub streams: Arc<Mutex<Streams>>,
    last_seen: LastSeen,
    /// Set when the registry lets go of it: a connection that holds it as its [`LastSession`]
    /// finds it no more.
    removed: AtomicBool,
}

/// The session a connection's last request named: the next request of the connection most
/// likely names it too, and then finds it here rather than in the registry, whose lock every
/// connection takes.
pub(crate) struct LastSession<S: Send + Sync + 'static>(Mutex<Weak<HttpSession<S>>>);

impl<S: Send + Sync + 'static> Default for LastSession<S> {
    fn default() -> Self {
        LastSession(Mutex::new(Weak::new()))
    }
}

/// When a session was last used. Every request of the session marks it: an atomic rather than a
/// lock, which all the session's connections would take in turn.
struct LastSeen {
    opened: Instant,
    /// Nanoseconds from `opened`.
    after: AtomicU64,
}

impl LastSeen {
    fn new() -> Self {
        LastSeen { opened: Instant::now(), after: AtomicU64::new(0) }
    }

    fn mark(&self, now: Instant) {
        let after = u64::try_from(now.saturating_duration_since(self.opened).as_nanos()).unwrap_or(u64::MAX);
        self.after.store(after, Ordering::Relaxed);
    }

    fn get(&self) -> Instant {
        self.opened + Duration::from_nanos(self.after.load(Ordering::Relaxed))
    }
}

impl<S: Send + Sync + 'static> HttpSession<S> {
    pub(crate) fn streams(&self) -> MutexGuard<'_, Streams> {
        lock(&self.streams)
    }

    /// Once `initialize` is answered: the streams follow the revision the session negotiated.
    pub(crate) fn negotiated(&self) {
        let framing = Framing::of(self.session.protocol_version());
        self.streams().set_framing(framing);
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

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// How many sessions may live, and how long they may sit idle.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SessionLimits {
    pub idle: Duration,
    pub retry_ms: u64,
    /// Sessions on the server; at the cap the least recently used idle one is ended.
    pub max_sessions: usize,
    /// Sessions of one client address; at the cap its least recently used idle one is ended.
    pub max_per_client: usize,
    /// Bytes of events kept for replay by one session, and by all of them together.
    pub log_bytes_per_session: usize,
    pub log_bytes_per_server: usize,
    /// Bytes an open event stream's client may leave unread before the stream is closed.
    pub max_unread_event_bytes: usize,
}

/// Why no session could be made.
#[derive(Debug)]
pub(crate) enum CreateError {
    /// The operating system gave no random bytes for an id.
    Id(std::io::Error),
    /// Every session is busy (a request in flight or a stream open), so none could make room.
    Full { limit: usize, per_client: bool },
}

impl std::fmt::Display for CreateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CreateError::Id(e) => write!(f, "no session id: {e}"),
            CreateError::Full { limit, per_client: true } => {
                write!(
                    f,
                    "this client has {limit} sessions, the most it may have, all busy; end one (DELETE /mcp) first"
                )
            }
            CreateError::Full { limit, per_client: false } => {
                write!(f, "the server has {limit} sessions, the most it may have, all busy; retry later")
            }
        }
    }
}

/// Hashes a session id by its first 16 bytes, with no key: ids are random (see
/// [`new_session_id`]), so no one can choose ids that collide; an id a request names only picks
/// where to look. SipHash's key, which guards a map against chosen collisions, would only slow
/// down the lookup every request of a session makes.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for word in bytes.chunks(8).take(2) {
            let mut padded = [0u8; 8];
            padded[..word.len()].copy_from_slice(word);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(padded)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn finish(&self) -> u64 {
        // The product's best mixed bits are its high ones; the table indexes by the low ones.
        self.0.rotate_left(26)
    }
}

struct Sessions<S: Send + Sync + 'static> {
    by_id: HashMap<String, Arc<HttpSession<S>>, BuildHasherDefault<IdHasher>>,
    per_client: HashMap<IpAddr, usize>,
}

impl<S: Send + Sync + 'static> Sessions<S> {
    fn insert(&mut self, http: Arc<HttpSession<S>>) {
        *self.per_client.entry(http.client).or_default() += 1;
        self.by_id.insert(http.id.clone(), http);
    }

    fn take(&mut self, id: &str) -> Option<Arc<HttpSession<S>>> {
        let http = self.by_id.remove(id)?;
        http.removed.store(true, Ordering::Release);
        if let Some(n) = self.per_client.get_mut(&http.client) {
            *n -= 1;
            if *n == 0 {
                self.per_client.remove(&http.client);
            }
        }
        Some(http)
    }

    /// Ends the least recently used session that is idle (no request in flight, no stream
    /// open), among those of `client` when given; false when every candidate is busy.
    fn evict(&mut self, client: Option<IpAddr>) -> bool {
        let oldest = self
            .by_id
            .values()
            .filter(|s| client.is_none_or(|c| s.client == c) && s.streams().is_idle())
            .min_by_key(|s| s.last_seen.get())
            .map(|s| s.id.clone());
        match oldest.and_then(|id| self.take(&id)) {
            Some(evicted) => {
                tracing::info!(client = %evicted.client, "session cap reached; ended the least recently used idle session");
                end(&evicted);
                true
            }
            None => false,
        }
    }
}

pub(crate) struct Registry<S: Send + Sync + 'static> {
    /// Read by every request of a session, written when one opens or ends: a read lock lets the
    /// requests of all connections look their sessions up at once.
    sessions: RwLock<Sessions<S>>,
    limits: SessionLimits,
    logs: Arc<LogBudget>,
    /// The sessions of open 2026-07-28 listens, which no id names.
    listens: OpenListens<S>,
}

impl<S: Send + Sync + 'static> Registry<S> {
    pub(crate) fn new(limits: SessionLimits) -> Self {
        let logs = Arc::new(LogBudget::new(limits.log_bytes_per_session, limits.log_bytes_per_server));
        let sessions = RwLock::new(Sessions { by_id: HashMap::default(), per_client: HashMap::new() });
        Registry { sessions, limits, logs, listens: OpenListens::default() }
    }

    /// A new session for `client` with a fresh id, its outgoing messages routed to its streams;
    /// at a cap, the least recently used idle session (of that client first) makes room.
    pub(crate) fn create(&self, server: &Server<S>, client: IpAddr) -> Result<Arc<HttpSession<S>>, CreateError> {
        let id = new_session_id().map_err(CreateError::Id)?;
        let mut sessions = self.write();
        let SessionLimits { max_sessions, max_per_client, .. } = self.limits;
        if sessions.per_client.get(&client).copied().unwrap_or(0) >= max_per_client && !sessions.evict(Some(client)) {
            return Err(CreateError::Full { limit: max_per_client, per_client: true });
        }
        if sessions.by_id.len() >= max_sessions && !sessions.evict(None) {
            return Err(CreateError::Full { limit: max_sessions, per_client: false });
        }
        // Until its revision is negotiated, the framing every revision's client reads.
        let http = self.session(server, id, client, Framing::Ids, Resumable::AfterFirstGet(FIRST_GET_WINDOW));
        sessions.insert(Arc::clone(&http));
        Ok(http)
    }

    /// A session for one request of the stateless revision: in no registry, with no id, gone when
    /// its answer (or its listen stream) is. No GET can name it, so it keeps no events, and its
    /// events carry no id.
    pub(crate) fn ephemeral(&self, server: &Server<S>, client: IpAddr) -> Arc<HttpSession<S>> {
        self.session(server, String::new(), client, Framing::Bare, Resumable::Never)
    }

    /// What its sessions' streams are made with.
    pub(crate) fn stream_settings(&self) -> StreamSettings {
        let SessionLimits { retry_ms, max_unread_event_bytes, .. } = self.limits;
        StreamSettings { retry_ms, max_unread: max_unread_event_bytes, logs: Arc::clone(&self.logs) }
    }

    /// Counts the session of a 2026-07-28 listen among those a shutdown ends.
    pub(crate) fn listening(&self, http: &Arc<HttpSession<S>>) {
        self.listens.track(http);
    }

    /// A session of `client` known as `id`, whose messages go to streams of its own.
    fn session(
        &self,
        server: &Server<S>,
        id: String,
        client: IpAddr,
        framing: Framing,
        resumable: Resumable,
    ) -> Arc<HttpSession<S>> {
        let streams = Arc::new(Mutex::new(self.stream_settings().streams(framing, resumable)));
        let session = Session::new(server, RouteToStreams(Arc::clone(&streams)));
        Arc::new(HttpSession {
            id,
            client,
            session,
            streams,
            last_seen: LastSeen::new(),
            removed: AtomicBool::new(false),
        })
    }

    /// The session of that id, marked as just used.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<HttpSession<S>>> {
        let session = self.read().by_id.get(id).cloned()?;
        session.last_seen.mark(Instant::now());
        Some(session)
    }

    /// [`get`](Self::get), found in `last` when it holds that session (still in the registry);
    /// `last` then holds the session found.
    pub(crate) fn get_after(&self, id: &str, last: &LastSession<S>) -> Option<Arc<HttpSession<S>>> {
        let mut held = lock(&last.0);
        let same = |s: &Arc<HttpSession<S>>| s.id == id && !s.removed.load(Ordering::Acquire);
        if let Some(session) = held.upgrade().filter(same) {
            session.last_seen.mark(Instant::now());
            return Some(session);
        }
        let session = self.get(id)?;
        *held = Arc::downgrade(&session);
        Some(session)
    }

    /// Ends a session; false when there was none.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let removed = self.write().take(id);
        if let Some(s) = &removed {
            end(s);
        }
        removed.is_some()
    }

    /// Ends sessions idle longer than the limit; returns how many. A session with an event stream
    /// open is not idle. Sessions that did not open their standalone stream in time let go of the
    /// events held for it.
    pub(crate) fn expire(&self) -> usize {
        let now = Instant::now();
        let mut sessions = self.write();
        let expired: Vec<String> = sessions
            .by_id
            .values()
            .filter(|s| {
                let mut streams = s.streams();
                streams.release_unclaimed(now);
                if streams.has_open_stream() {
                    s.last_seen.mark(now);
                }
                drop(streams);
                now.saturating_duration_since(s.last_seen.get()) >= self.limits.idle
            })
            .map(|s| s.id.clone())
            .collect();
        for id in &expired {
            if let Some(s) = sessions.take(id) {
                end(&s);
            }
        }
        expired.len()
    }

    /// Ends every session (the end of a shutdown).
    pub(crate) fn clear(&self) {
        let mut sessions = self.write();
        sessions.per_client.clear();
        for (_, s) in sessions.by_id.drain() {
            s.removed.store(true, Ordering::Release);
            end(&s);
        }
    }

    /// Ends the standalone streams and the open listens (which stand in for them in revision
    /// 2026-07-28), so that only requests in flight hold a shutdown.
    pub(crate) fn end_standalone_streams(&self) {
        for s in self.read().by_id.values() {
            s.streams().end_standalone();
        }
        self.listens.end_all();
    }

    pub(crate) fn idle_limit(&self) -> Duration {
        self.limits.idle
    }

    fn read(&self) -> RwLockReadGuard<'_, Sessions<S>> {
        self.sessions.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Sessions<S>> {
        self.sessions.write().unwrap_or_else(|p| p.into_inner())
    }
}

/// Aborts a session's calls and answers the requests still waiting, so no POST hangs.
pub(super) fn end<S: Send + Sync + 'static>(s: &HttpSession<S>) {
    s.session.close();
    s.streams().close_all();
}

/// 128 random bits as 32 hex digits: visible ASCII, as MCP requires.
fn new_session_id() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_finds_its_last_session_only_while_the_registry_holds_it() {
        let server = Server::builder(()).info("sessions", "1.0.0").build().unwrap();
        let registry = Registry::new(SessionLimits {
            idle: Duration::from_secs(60),
            retry_ms: 500,
            max_sessions: 4,
            max_per_client: 4,
            log_bytes_per_session: 1 << 16,
            log_bytes_per_server: 1 << 20,
            max_unread_event_bytes: 1 << 16,
        });
        let http = registry.create(&server, IpAddr::from([127, 0, 0, 1])).unwrap();
        let last = LastSession::default();
        assert!(registry.get_after(&http.id, &last).is_some_and(|found| Arc::ptr_eq(&found, &http)));
        assert!(registry.get_after(&http.id, &last).is_some(), "found again, where the connection keeps it");
        assert!(registry.get_after("0123456789abcdef0123456789abcdef", &last).is_none());
        assert!(registry.remove(&http.id));
        assert!(registry.get_after(&http.id, &last).is_none(), "ended, though the connection still held it");
    }
}
