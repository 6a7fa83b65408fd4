//! The entity repository: definitions under `entities/`, record files matched by their includes,
//! read once and read again on the first call after a file changes (only the changed files are
//! read and parsed again). Reading runs on a blocking thread, never on the caller's: a slow
//! file holds up the calls that need the repository, not the server.

mod cache;
mod changes;
mod definition;
mod depth;
mod error;
mod includes;
mod inheritance;
mod normalize;
mod reader;
mod records;
mod roots;
pub mod schema;
mod snapshot;
mod source;
mod validation;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use error::{Diagnostic, LoadError};
pub use records::{Record, Records};
pub use schema::Schema;
pub use snapshot::{Entity, Snapshot};
pub use source::Limits;

use changes::Changes;
use reader::Caches;

pub struct Repository {
    root: PathBuf,
    limits: Limits,
    /// An async lock: a call waiting for a read in progress holds no thread.
    state: tokio::sync::Mutex<State>,
}

struct State {
    changes: Changes,
    caches: Caches,
    current: Option<Result<Arc<Snapshot>, LoadError>>,
}

/// The repository as one call sees it.
pub struct Current {
    pub snapshot: Arc<Snapshot>,
    /// Read for this call (its diagnostics are new), rather than kept from an earlier one.
    pub fresh: bool,
}

impl Repository {
    /// A repository at `root`, which must be a directory; nothing is read until the first call.
    /// A relative `root` is resolved from the working directory.
    pub fn open(root: &Path, limits: Limits) -> Result<Repository, String> {
        let canonical = root.canonicalize().map_err(|e| {
            let tried = std::path::absolute(root).unwrap_or_else(|_| root.to_owned());
            let relative = if root.is_relative() {
                let cwd = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
                format!(" (a relative root is resolved from the working directory, {cwd})")
            } else {
                String::new()
            };
            format!("the root {} cannot be opened: {}: {e}{relative}", root.display(), tried.display())
        })?;
        if !canonical.is_dir() {
            return Err(format!("the root {} ({}) is not a directory", root.display(), canonical.display()));
        }
        let state = State { changes: Changes::new(), caches: Caches::default(), current: None };
        Ok(Repository { root: canonical, limits, state: tokio::sync::Mutex::new(state) })
    }

    /// The repository as the files are now: the last read, or a new one when a file changed.
    pub async fn snapshot(&self) -> Result<Current, LoadError> {
        let mut state = self.state.lock().await;
        if !state.changes.changed()
            && let Some(current) = &state.current
        {
            return current.clone().map(|snapshot| Current { snapshot, fresh: false });
        }
        let previous = state.current.take();
        let loaded = self.reload(&mut state, previous).await;
        state.current = Some(loaded.clone());
        loaded.map(|snapshot| Current { snapshot, fresh: true })
    }

    /// Reads the repository on a blocking thread, reusing the caches and what `previous` made.
    async fn reload(
        &self,
        state: &mut State,
        previous: Option<Result<Arc<Snapshot>, LoadError>>,
    ) -> Result<Arc<Snapshot>, LoadError> {
        let (root, limits) = (self.root.clone(), self.limits);
        let mut caches = std::mem::take(&mut state.caches);
        let writing = state.changes.writing().clone();
        let read = tokio::task::spawn_blocking(move || {
            let previous = previous.and_then(Result::ok);
            let loaded = Snapshot::load(&root, &limits, &mut caches, &writing, previous.as_deref()).map(Arc::new);
            (loaded, caches)
        })
        .await;
        let loaded = match read {
            Ok((loaded, caches)) => {
                state.caches = caches;
                loaded
            }
            Err(e) => Err(LoadError::new("", format!("reading the repository failed: {e}"))),
        };
        match &loaded {
            Ok(snapshot) => {
                state.changes.watch(&snapshot.dirs);
                for diagnostic in &snapshot.diagnostics {
                    tracing::warn!("{diagnostic}");
                }
            }
            Err(_) => state.changes.watch(&[self.root.clone()].into()),
        }
        loaded
    }
}
