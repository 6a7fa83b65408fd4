//! The entity repository: definitions under `entities/`, record files matched by their includes,
//! read once and read again on the first call after a file changes.

mod changes;
mod definition;
mod error;
mod includes;
mod inheritance;
mod normalize;
mod records;
mod roots;
pub mod schema;
mod snapshot;
mod source;
mod validation;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use error::LoadError;
pub use records::{Record, Records};
pub use schema::Schema;
pub use snapshot::{Entity, Snapshot};

use changes::Changes;

pub struct Repository {
    root: PathBuf,
    state: Mutex<State>,
}

struct State {
    changes: Changes,
    current: Option<Result<Arc<Snapshot>, LoadError>>,
}

impl Repository {
    /// A repository at `root`, which must be a directory; nothing is read until the first call.
    pub fn open(root: &Path) -> Result<Repository, String> {
        let root = root.canonicalize().map_err(|e| format!("the root {} cannot be opened: {e}", root.display()))?;
        if !root.is_dir() {
            return Err(format!("the root {} is not a directory", root.display()));
        }
        Ok(Repository { root, state: Mutex::new(State { changes: Changes::new(), current: None }) })
    }

    /// The repository as the files are now: the last read, or a new one when a file changed.
    pub fn snapshot(&self) -> Result<Arc<Snapshot>, LoadError> {
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let state = &mut *state;
        if state.changes.changed() {
            state.current = None;
        }
        state
            .current
            .get_or_insert_with(|| {
                let loaded = Snapshot::load(&self.root).map(Arc::new);
                match &loaded {
                    Ok(snapshot) => state.changes.watch(&snapshot.dirs),
                    Err(_) => state.changes.watch(&[self.root.clone()].into()),
                }
                loaded
            })
            .clone()
    }
}
