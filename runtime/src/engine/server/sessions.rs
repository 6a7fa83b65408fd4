//! The live sessions of a server, which its broadcasts reach: tool-list changes, resource
//! updates, task changes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use crate::api::lock;
use crate::engine::session::SessionCore;
use crate::engine::tasks::{DetailedTask, TaskWatchers};

/// The live sessions, by key; weak, so a session ends when its transport lets go of it.
pub(super) struct LiveSessions<S>(Mutex<HashMap<u64, Weak<SessionCore<S>>>>);

impl<S> Default for LiveSessions<S> {
    fn default() -> Self {
        LiveSessions(Mutex::new(HashMap::new()))
    }
}

impl<S> LiveSessions<S> {
    pub(super) fn register(&self, key: u64, session: &Arc<SessionCore<S>>) {
        lock(&self.0).insert(key, Arc::downgrade(session));
    }

    pub(super) fn unregister(&self, key: u64) {
        lock(&self.0).remove(&key);
    }

    /// The sessions still alive, taken out of the lock (a broadcast sends under theirs).
    fn live(&self) -> Vec<Arc<SessionCore<S>>> {
        lock(&self.0).values().filter_map(Weak::upgrade).collect()
    }

    /// The open listens of the live sessions.
    pub(super) fn open_listens(&self) -> usize {
        self.live().iter().map(|session| lock(&session.listeners).len()).sum()
    }

    pub(super) fn broadcast(&self, f: impl Fn(&SessionCore<S>)) {
        for session in self.live() {
            f(&session);
        }
    }
}

/// The sessions' open listens, as the watchers of task changes (`notifications/tasks`).
pub(super) struct Listens<S>(pub(super) Arc<LiveSessions<S>>);

impl<S: Send + Sync + 'static> TaskWatchers for Listens<S> {
    fn watches(&self, id: &str) -> bool {
        self.0.live().iter().any(|s| s.watches_task(id))
    }

    fn changed(&self, id: &str, detailed: &DetailedTask) {
        for session in self.0.live() {
            session.task_changed(id, detailed);
        }
    }
}
