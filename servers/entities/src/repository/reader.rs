//! Reading files during one load of the repository: through the caches (a file read before and
//! unchanged since is not read again), within the limits, with a diagnostic for every file that
//! is skipped or served in an earlier version.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::cache::{FileCache, Read};
use super::changes::Writing;
use super::definition::Definition;
use super::error::Diagnostic;
use super::roots::Config;
use super::source::{Format, Limits};

/// The last read of every kind of file, kept from one load to the next.
#[derive(Default)]
pub struct Caches {
    config: FileCache<Config>,
    definitions: FileCache<Definition>,
    documents: FileCache<Value>,
}

pub struct Reader<'a> {
    pub limits: &'a Limits,
    caches: &'a mut Caches,
    writing: &'a Writing,
    /// Every directory read, so that a change in one is noticed.
    pub dirs: BTreeSet<PathBuf>,
    pub diagnostics: Vec<Diagnostic>,
}

impl<'a> Reader<'a> {
    pub fn new(limits: &'a Limits, caches: &'a mut Caches, writing: &'a Writing) -> Reader<'a> {
        caches.config.begin();
        caches.definitions.begin();
        caches.documents.begin();
        Reader { limits, caches, writing, dirs: BTreeSet::new(), diagnostics: Vec::new() }
    }

    /// Ends the load: what was not read in it is forgotten.
    pub fn finish(self) -> (BTreeSet<PathBuf>, Vec<Diagnostic>) {
        self.caches.config.end();
        self.caches.definitions.end();
        self.caches.documents.end();
        (self.dirs, self.diagnostics)
    }

    /// Notes a file left out of the repository, and why.
    pub fn skip(&mut self, shown: &str, reason: String) {
        self.diagnostics.push(Diagnostic { file: shown.to_owned(), message: format!("skipped: {reason}") });
    }

    /// `repository.yaml` at the canonical path `real`.
    pub fn config(&mut self, real: &Path, shown: &str) -> Result<Arc<Config>, String> {
        let read = read(&mut self.caches.config, real, Format::Yaml, self.limits, self.writing);
        self.note(shown, read)
    }

    /// A definition at the canonical path `real`.
    pub fn definition(&mut self, real: &Path, shown: &str) -> Result<Arc<Definition>, String> {
        let read = read(&mut self.caches.definitions, real, Format::Yaml, self.limits, self.writing);
        self.note(shown, read)
    }

    /// A record file or JSON Schema at the canonical path `real`, its format told by `shown`.
    pub fn document(&mut self, real: &Path, shown: &str) -> Result<Arc<Value>, String> {
        let read = read(&mut self.caches.documents, real, Format::of(shown)?, self.limits, self.writing);
        self.note(shown, read)
    }

    fn note<T>(&mut self, shown: &str, read: Read<T>) -> Result<Arc<T>, String> {
        if let Some(message) = read.stale {
            self.diagnostics.push(Diagnostic { file: shown.to_owned(), message });
        }
        read.value
    }
}

fn read<T: DeserializeOwned>(
    cache: &mut FileCache<T>,
    real: &Path,
    format: Format,
    limits: &Limits,
    writing: &Writing,
) -> Read<T> {
    cache.read(real, writing.contains(real), limits, |text| format.parse(text, limits))
}
