//! Noticing that files changed. On Linux: an inotify watch on every directory a read went
//! through. The kernel queues an event before the writing call returns, and the queue is read
//! here without blocking, on the caller's thread: a change made before a tool call is always
//! seen by that call, for the price of one system call. Without inotify, every call reads again.

use std::collections::BTreeSet;
use std::path::PathBuf;

#[cfg(target_os = "linux")]
pub struct Changes {
    inotify: Option<inotify::Inotify>,
    buffer: Vec<u8>,
}

#[cfg(target_os = "linux")]
impl Changes {
    pub fn new() -> Changes {
        Changes { inotify: inotify::Inotify::init().ok(), buffer: vec![0; 4096] }
    }

    /// Whether anything changed in a watched directory since the last call (or whether that
    /// cannot be known). Drains the queue.
    pub fn changed(&mut self) -> bool {
        let Some(inotify) = &mut self.inotify else { return true };
        let mut any = false;
        loop {
            match inotify.read_events(&mut self.buffer) {
                Ok(events) => {
                    let count = events.count();
                    if count == 0 {
                        return any;
                    }
                    any = true;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return any,
                Err(_) => return true,
            }
        }
    }

    /// Watches these directories too (already watched ones are kept as they are).
    pub fn watch(&mut self, dirs: &BTreeSet<PathBuf>) {
        use inotify::WatchMask;
        let Some(inotify) = &mut self.inotify else { return };
        let mask = WatchMask::MODIFY
            | WatchMask::CLOSE_WRITE
            | WatchMask::ATTRIB
            | WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
            | WatchMask::DELETE_SELF
            | WatchMask::MOVE_SELF;
        for dir in dirs {
            // Out of watches: read on every call rather than miss a change. (A directory gone
            // since it was read needs no watch: its parent's watch saw it go.)
            if let Err(e) = inotify.watches().add(dir, mask)
                && e.kind() == std::io::ErrorKind::StorageFull
            {
                self.inotify = None;
                return;
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub struct Changes;

#[cfg(not(target_os = "linux"))]
impl Changes {
    pub fn new() -> Changes {
        Changes
    }

    pub fn changed(&mut self) -> bool {
        true
    }

    pub fn watch(&mut self, _dirs: &BTreeSet<PathBuf>) {}
}
