//! The open listens of revision 2026-07-28 (`subscriptions/listen`), each served by a session of
//! its own that no registry holds. A listen stands in for the standalone GET stream of the older
//! revisions and, like it, never ends by itself: a shutdown ends both, rather than waiting out its
//! grace period for streams that would only end with it.

use std::sync::{Arc, Mutex, MutexGuard, Weak};

use super::registry::{self, HttpSession};

/// The sessions of the open listens. Held weakly: a listen's stream owns its session, and the
/// entries of listens that ended go at the next one, so there are at most as many as listens
/// were open at once (each holds a connection, under the connection cap).
pub(crate) struct OpenListens<S: Send + Sync + 'static>(Mutex<Vec<Weak<HttpSession<S>>>>);

impl<S: Send + Sync + 'static> Default for OpenListens<S> {
    fn default() -> Self {
        OpenListens(Mutex::new(Vec::new()))
    }
}

impl<S: Send + Sync + 'static> OpenListens<S> {
    /// Counts `http`, the session of a listen, among the open ones.
    pub(crate) fn track(&self, http: &Arc<HttpSession<S>>) {
        let mut open = self.lock();
        open.retain(|listen| listen.strong_count() > 0);
        open.push(Arc::downgrade(http));
    }

    /// Ends every open listen: its session closes and its stream ends.
    pub(crate) fn end_all(&self) {
        let open = std::mem::take(&mut *self.lock());
        for http in open.iter().filter_map(Weak::upgrade) {
            registry::end(&http);
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Weak<HttpSession<S>>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}
