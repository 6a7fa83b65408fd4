//! The last read of every file, reused while the file is unchanged (same device, inode, size,
//! modification and change times), so a reload reads and parses only the files that changed.
//! A file that fails to read or parse after an earlier version of it was read, or that is being
//! written, is served in that earlier version, with the reason, rather than as an error.

use std::collections::HashMap;
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::source::{self, Limits};

pub struct FileCache<T> {
    entries: HashMap<PathBuf, Entry<T>>,
    /// The load in progress; entries not read in it are dropped at its end.
    generation: u64,
}

struct Entry<T> {
    stamp: Stamp,
    /// What this version of the file gives.
    outcome: Result<Arc<T>, String>,
    /// Why `outcome` is an earlier version than the file now on disk.
    stale: Option<String>,
    /// The last version that could be read and parsed.
    last_good: Option<Arc<T>>,
    generation: u64,
}

/// What identifies one version of a file without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

impl Stamp {
    fn of(metadata: &Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            dev: metadata.dev(),
            ino: metadata.ino(),
            len: metadata.len(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        }
    }
}

/// One file as read: its value or why there is none, and why it is an earlier version, when it is.
pub struct Read<T> {
    pub value: Result<Arc<T>, String>,
    pub stale: Option<String>,
}

impl<T> Default for FileCache<T> {
    fn default() -> Self {
        FileCache { entries: HashMap::new(), generation: 0 }
    }
}

impl<T> FileCache<T> {
    /// Starts a load: files not read from now until `end` are forgotten then.
    pub fn begin(&mut self) {
        self.generation += 1;
    }

    pub fn end(&mut self) {
        let generation = self.generation;
        self.entries.retain(|_, entry| entry.generation == generation);
    }

    /// The file at the canonical path `real`, parsed by `parse`; `being_written` when a writer
    /// has modified it and not closed it yet.
    pub fn read(
        &mut self,
        real: &Path,
        being_written: bool,
        limits: &Limits,
        parse: impl FnOnce(&str) -> Result<T, String>,
    ) -> Read<T> {
        let metadata = match std::fs::symlink_metadata(real) {
            Ok(metadata) if metadata.is_file() => metadata,
            Ok(metadata) => return self.forget(real, source::not_regular(metadata.file_type())),
            Err(e) => return self.forget(real, e.to_string()),
        };
        let generation = self.generation;
        let stamp = Stamp::of(&metadata);
        if let Some(entry) = self.entries.get_mut(real) {
            entry.generation = generation;
            if entry.stamp == stamp {
                return Read { value: entry.outcome.clone(), stale: entry.stale.clone() };
            }
            if being_written && let Some(good) = &entry.last_good {
                let stale = "the file is being written; its last complete version is served".to_owned();
                return Read { value: Ok(Arc::clone(good)), stale: Some(stale) };
            }
        }
        let last_good = self.entries.get(real).and_then(|entry| entry.last_good.clone());
        let entry = match source::read_text(real, limits).and_then(|(text, opened)| Ok((parse(&text)?, opened))) {
            Ok((value, opened)) => {
                let value = Arc::new(value);
                Entry {
                    stamp: Stamp::of(&opened),
                    outcome: Ok(Arc::clone(&value)),
                    stale: None,
                    last_good: Some(value),
                    generation,
                }
            }
            Err(reason) => match last_good {
                Some(good) => Entry {
                    stamp,
                    outcome: Ok(Arc::clone(&good)),
                    stale: Some(format!("{reason}; the last version that could be read is served")),
                    last_good: Some(good),
                    generation,
                },
                None => Entry { stamp, outcome: Err(reason), stale: None, last_good: None, generation },
            },
        };
        let read = Read { value: entry.outcome.clone(), stale: entry.stale.clone() };
        self.entries.insert(real.to_owned(), entry);
        read
    }

    /// A file that is gone or is no regular file has no last version to serve.
    fn forget(&mut self, real: &Path, reason: String) -> Read<T> {
        self.entries.remove(real);
        Read { value: Err(reason), stale: None }
    }
}
