//! Noticing that files changed. On Linux: an inotify watch on every directory a read went
//! through. The kernel queues an event before the writing call returns, and the queue is read
//! here without blocking, on the caller's thread: a change made before a tool call is always
//! seen by that call, for the price of one system call. Without inotify, every call reads again.
//!
//! The events also tell which files are being written: modified and not closed since.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Canonical paths of the files modified and not closed since: a writer is still at work.
pub type Writing = BTreeSet<PathBuf>;

#[cfg(target_os = "linux")]
pub struct Changes {
    inotify: Option<inotify::Inotify>,
    buffer: Vec<u8>,
    /// Each watch's directory, canonical.
    watched: BTreeMap<inotify::WatchDescriptor, PathBuf>,
    writing: Writing,
}

#[cfg(target_os = "linux")]
impl Changes {
    pub fn new() -> Changes {
        Changes {
            inotify: inotify::Inotify::init().ok(),
            buffer: vec![0; 4096],
            watched: BTreeMap::new(),
            writing: Writing::new(),
        }
    }

    /// Whether anything changed in a watched directory since the last call (or whether that
    /// cannot be known). Drains the queue.
    pub fn changed(&mut self) -> bool {
        use inotify::EventMask;
        let Some(inotify) = &mut self.inotify else { return true };
        let mut any = false;
        loop {
            let events = match inotify.read_events(&mut self.buffer) {
                Ok(events) => events,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return any,
                Err(_) => return true,
            };
            let mut count = 0;
            for event in events {
                count += 1;
                if event.mask.contains(EventMask::Q_OVERFLOW) {
                    // Events were lost: who is writing is not known any more.
                    self.writing.clear();
                    continue;
                }
                let (Some(dir), Some(name)) = (self.watched.get(&event.wd), event.name) else { continue };
                let path = dir.join(name);
                if event.mask.contains(EventMask::MODIFY) {
                    self.writing.insert(path);
                } else if event.mask.intersects(EventMask::CLOSE_WRITE | EventMask::DELETE | EventMask::MOVED_FROM) {
                    self.writing.remove(&path);
                }
            }
            if count == 0 {
                return any;
            }
            any = true;
        }
    }

    /// The files being written, as of the last `changed`.
    pub fn writing(&self) -> &Writing {
        &self.writing
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
            match inotify.watches().add(dir, mask) {
                Ok(wd) => {
                    self.watched.insert(wd, dir.canonicalize().unwrap_or_else(|_| dir.clone()));
                }
                // Out of watches: read on every call rather than miss a change, and, with no
                // more events to tell when a writer is done, no file is taken as being written.
                Err(e) if e.kind() == std::io::ErrorKind::StorageFull => {
                    self.inotify = None;
                    self.writing.clear();
                    return;
                }
                // A directory gone since it was read needs no watch: its parent's watch saw it go.
                Err(_) => {}
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub struct Changes {
    writing: Writing,
}

#[cfg(not(target_os = "linux"))]
impl Changes {
    pub fn new() -> Changes {
        Changes { writing: Writing::new() }
    }

    pub fn changed(&mut self) -> bool {
        true
    }

    pub fn writing(&self) -> &Writing {
        &self.writing
    }

    pub fn watch(&mut self, _dirs: &BTreeSet<PathBuf>) {}
}
