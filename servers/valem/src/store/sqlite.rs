//! The SQLite store of `valem serve --data DIR`: one file `DIR/valem.db` in WAL mode with
//! `synchronous=FULL`, so that a commit is on disk before it returns. One process serves a
//! directory (it holds `DIR/valem.lock`), so a model is held alone by this process's own lock
//! of it; one connection writes, in `BEGIN IMMEDIATE` transactions that commit every write
//! waiting at once (`batch.rs`), and reads run side by side on their own connections.

use std::collections::HashSet;
use std::fs::{File, OpenOptions, TryLockError};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use serde_json::{Map, Value};

use super::batch::Writer;
use super::{
    ModelChange, ModelStore, StoreError, StoredBlob, StoredModel, blobs_full, next_link, stored_json, stored_record,
};
use crate::audit::seal;

/// The database file under the data directory.
pub const DATABASE: &str = "valem.db";
/// The file a serving process holds locked, so that a second one on the same directory stops.
pub const LOCK: &str = "valem.lock";
/// Reader connections kept open between reads.
const KEPT_READERS: usize = 8;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS models (
    id TEXT PRIMARY KEY NOT NULL,
    spec TEXT NOT NULL,
    state TEXT NOT NULL,
    revision INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    model_id TEXT NOT NULL,
    sequence INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (model_id, sequence)
);
CREATE TABLE IF NOT EXISTS blobs (
    id TEXT PRIMARY KEY NOT NULL,
    media_type TEXT NOT NULL,
    bytes BLOB NOT NULL
);
";

pub struct SqliteStore {
    path: PathBuf,
    busy_timeout: Duration,
    writer: Writer,
    readers: Mutex<Vec<Connection>>,
    /// The models a change holds, each alone; `freed` wakes those that wait for one.
    held: Mutex<HashSet<String>>,
    freed: Condvar,
    _lock: File,
}

fn unavailable(what: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |e| StoreError::Unavailable(format!("SQLite: {what}: {e}"))
}

impl SqliteStore {
    /// Opens (creating when absent) the store under `dir`; a clear error when `dir` is not a
    /// writable directory or another process serves it.
    pub fn open(dir: &Path, busy_timeout: Duration) -> Result<SqliteStore, StoreError> {
        let shown = dir.display();
        if dir.exists() && !dir.is_dir() {
            return Err(StoreError::Unavailable(format!("--data {shown} is not a directory")));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Unavailable(format!("--data {shown}: cannot create the directory: {e}")))?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(LOCK))
            .map_err(|e| StoreError::Unavailable(format!("--data {shown} is not a writable directory: {e}")))?;
        lock.try_lock().map_err(|e| match e {
            TryLockError::WouldBlock => {
                StoreError::Unavailable(format!("--data {shown} is in use by another valem process"))
            }
            TryLockError::Error(e) => StoreError::Unavailable(format!("--data {shown}: cannot lock {LOCK}: {e}")),
        })?;
        let path = dir.join(DATABASE);
        let writer = connect(&path, busy_timeout, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE)?;
        writer
            .pragma_update(None, "journal_mode", "WAL")
            .and_then(|_| writer.execute_batch(SCHEMA))
            .map_err(|e| StoreError::Unavailable(format!("--data {shown}: cannot set up {}: {e}", path.display())))?;
        Ok(SqliteStore {
            path,
            busy_timeout,
            writer: Writer::new(writer),
            readers: Mutex::default(),
            held: Mutex::default(),
            freed: Condvar::new(),
            _lock: lock,
        })
    }

    fn held(&self) -> MutexGuard<'_, HashSet<String>> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `read` on a reader connection (one kept from before, or a new one).
    fn read<T>(&self, read: impl FnOnce(&Connection) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let kept = self.readers.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let conn = match kept {
            Some(conn) => conn,
            None => connect(&self.path, self.busy_timeout, OpenFlags::SQLITE_OPEN_READ_ONLY)?,
        };
        let result = read(&conn);
        let mut readers = self.readers.lock().unwrap_or_else(|p| p.into_inner());
        if readers.len() < KEPT_READERS {
            readers.push(conn);
        }
        result
    }
}

/// A sequence as SQLite's signed integer (past its range: its largest).
fn sql_int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn connect(path: &Path, busy_timeout: Duration, flags: OpenFlags) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| StoreError::Unavailable(format!("cannot open {}: {e}", path.display())))?;
    conn.busy_timeout(busy_timeout).map_err(unavailable("busy timeout"))?;
    conn.pragma_update(None, "synchronous", "FULL").map_err(unavailable("synchronous=FULL"))?;
    Ok(conn)
}

fn revision_of(conn: &Connection, id: &str) -> Result<Option<u64>, StoreError> {
    conn.query_row("SELECT revision FROM models WHERE id = ?1", [id], |r| r.get::<_, i64>(0))
        .optional()
        .map(|r| r.map(|r| r as u64))
        .map_err(unavailable("read a revision"))
}

fn load_from(conn: &Connection, id: &str) -> Result<Option<(StoredModel, u64)>, StoreError> {
    let row = conn
        .query_row("SELECT spec, state, revision FROM models WHERE id = ?1", [id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)?))
        })
        .optional()
        .map_err(unavailable("read a model"))?;
    let Some((spec, state, revision)) = row else { return Ok(None) };
    let model = StoredModel { spec: stored_json("spec", id, &spec)?, state: stored_json("state", id, &state)? };
    Ok(Some((model, revision as u64)))
}

impl ModelStore for SqliteStore {
    fn describe(&self) -> String {
        format!("SQLite at {}", self.path.display())
    }

    fn ids(&self, after: Option<&str>, limit: usize) -> Result<(Vec<String>, bool), StoreError> {
        self.read(|conn| {
            let mut statement = conn
                .prepare_cached("SELECT id FROM models WHERE id > ?1 ORDER BY id LIMIT ?2")
                .map_err(unavailable("list models"))?;
            let rows = statement
                .query_map(params![after.unwrap_or(""), limit.saturating_add(1) as i64], |r| r.get::<_, String>(0))
                .map_err(unavailable("list models"))?;
            let mut ids = rows.collect::<Result<Vec<_>, _>>().map_err(unavailable("list models"))?;
            let more = ids.len() > limit;
            ids.truncate(limit);
            Ok((ids, more))
        })
    }

    fn count(&self) -> Result<usize, StoreError> {
        self.read(|conn| {
            conn.query_row("SELECT count(*) FROM models", [], |r| r.get::<_, i64>(0))
                .map(|n| n as usize)
                .map_err(unavailable("count models"))
        })
    }

    fn load(&self, id: &str) -> Result<Option<(StoredModel, u64)>, StoreError> {
        self.read(|conn| load_from(conn, id))
    }

    fn revision(&self, id: &str) -> Result<Option<u64>, StoreError> {
        self.read(|conn| revision_of(conn, id))
    }

    fn create(&self, id: &str, model: &StoredModel) -> Result<(), StoreError> {
        let (id, spec, state) = (id.to_owned(), model.spec.to_string(), model.state.to_string());
        self.writer.write(move |conn| {
            if revision_of(conn, &id)?.is_some() {
                return Err(StoreError::Exists(id));
            }
            // A trail left by a model of this id deleted outside the server starts over.
            conn.execute("DELETE FROM audit WHERE model_id = ?1", [&id]).map_err(unavailable("create a model"))?;
            conn.execute(
                "INSERT INTO models (id, spec, state, revision) VALUES (?1, ?2, ?3, 1)",
                params![id, spec, state],
            )
            .map_err(unavailable("create a model"))?;
            Ok(1)
        })?;
        Ok(())
    }

    fn begin(&self, id: &str) -> Result<Box<dyn ModelChange + '_>, StoreError> {
        let mut held = self.held();
        while held.contains(id) {
            held = self.freed.wait(held).unwrap_or_else(|p| p.into_inner());
        }
        held.insert(id.to_owned());
        drop(held);
        // Held from here: let go when the change drops, whatever happens next.
        let mut change = SqliteChange { store: self, id: id.to_owned(), revision: 0 };
        change.revision = self.revision(id)?.ok_or_else(|| StoreError::NotFound(id.to_owned()))?;
        Ok(Box::new(change))
    }

    fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let id = id.to_owned();
        let gone = self.writer.write(move |conn| {
            let gone =
                conn.execute("DELETE FROM models WHERE id = ?1", [&id]).map_err(unavailable("delete a model"))?;
            conn.execute("DELETE FROM audit WHERE model_id = ?1", [&id]).map_err(unavailable("delete a trail"))?;
            Ok(gone as u64)
        })?;
        Ok(gone > 0)
    }

    fn next_sequence(&self, id: &str) -> Result<u64, StoreError> {
        self.read(|conn| {
            conn.query_row("SELECT coalesce(max(sequence) + 1, 0) FROM audit WHERE model_id = ?1", [id], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n as u64)
            .map_err(unavailable("read a trail"))
        })
    }

    fn records(&self, id: &str, sequences: Range<u64>) -> Result<Vec<Value>, StoreError> {
        self.read(|conn| {
            let mut statement = conn
                .prepare_cached(
                    "SELECT record FROM audit WHERE model_id = ?1 AND sequence >= ?2 AND sequence < ?3 ORDER BY sequence",
                )
                .map_err(unavailable("read a trail"))?;
            let (from, to) = (sql_int(sequences.start), sql_int(sequences.end));
            let rows = statement.query_map(params![id, from, to], |r| r.get::<_, String>(0)).map_err(unavailable("read a trail"))?;
            rows.map(|row| row.map(stored_record).map_err(unavailable("read a trail"))).collect()
        })
    }

    fn put_blob(&self, id: &str, media_type: &str, bytes: &[u8], max_total: u64) -> Result<(), StoreError> {
        let (id, media_type, bytes) = (id.to_owned(), media_type.to_owned(), bytes.to_vec());
        self.writer.write(move |conn| {
            let held = conn
                .query_row("SELECT EXISTS (SELECT 1 FROM blobs WHERE id = ?1)", [&id], |r| r.get::<_, bool>(0))
                .map_err(unavailable("read a blob"))?;
            if held {
                return Ok(0);
            }
            let total = conn
                .query_row("SELECT coalesce(sum(length(bytes)), 0) FROM blobs", [], |r| r.get::<_, i64>(0))
                .map_err(unavailable("measure the blobs"))? as u64;
            if total + bytes.len() as u64 > max_total {
                return Err(blobs_full(max_total));
            }
            conn.execute(
                "INSERT INTO blobs (id, media_type, bytes) VALUES (?1, ?2, ?3)",
                params![id, media_type, bytes],
            )
            .map_err(unavailable("store a blob"))?;
            Ok(1)
        })?;
        Ok(())
    }

    fn get_blob(&self, id: &str) -> Result<Option<StoredBlob>, StoreError> {
        self.read(|conn| {
            conn.query_row("SELECT media_type, bytes FROM blobs WHERE id = ?1", [id], |r| {
                Ok(StoredBlob { media_type: r.get(0)?, bytes: r.get(1)? })
            })
            .optional()
            .map_err(unavailable("read a blob"))
        })
    }

    /// One process serves a directory (see `LOCK`): no other instance commits.
    fn watch(&self, _on_commit: Arc<dyn Fn(&str) + Send + Sync>) {}
}

/// A model held alone by this process until the change drops.
struct SqliteChange<'a> {
    store: &'a SqliteStore,
    id: String,
    revision: u64,
}

impl Drop for SqliteChange<'_> {
    fn drop(&mut self) {
        self.store.held().remove(&self.id);
        self.store.freed.notify_all();
    }
}

impl ModelChange for SqliteChange<'_> {
    fn revision(&self) -> u64 {
        self.revision
    }

    fn load(&self) -> Result<StoredModel, StoreError> {
        let loaded = self.store.load(&self.id)?;
        loaded.map(|(m, _)| m).ok_or_else(|| StoreError::NotFound(self.id.clone()))
    }

    fn commit(self: Box<Self>, model: &StoredModel, audit: Option<Map<String, Value>>) -> Result<u64, StoreError> {
        let (id, revision) = (self.id.clone(), self.revision + 1);
        let (spec, state) = (model.spec.to_string(), model.state.to_string());
        self.store.writer.write(move |conn| {
            let changed = conn
                .execute(
                    "UPDATE models SET spec = ?2, state = ?3, revision = ?4 WHERE id = ?1 AND revision = ?4 - 1",
                    params![id, spec, state, sql_int(revision)],
                )
                .map_err(unavailable("store a model"))?;
            if changed == 0 {
                return Err(StoreError::NotFound(id));
            }
            if let Some(record) = audit {
                append(conn, &id, record)?;
            }
            Ok(revision)
        })
    }
}

/// Seals `record` onto the end of the stored trail of `id`.
fn append(conn: &Connection, id: &str, record: Map<String, Value>) -> Result<(), StoreError> {
    let last = conn
        .query_row("SELECT sequence, record FROM audit WHERE model_id = ?1 ORDER BY sequence DESC LIMIT 1", [id], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })
        .optional()
        .map_err(unavailable("read the trail's end"))?;
    let (sequence, prev) = next_link(id, last.map(|(sequence, text)| (sequence as u64, text)))?;
    let sealed = Value::Object(seal(record, sequence, &prev));
    conn.execute(
        "INSERT INTO audit (model_id, sequence, record) VALUES (?1, ?2, ?3)",
        params![id, sql_int(sequence), sealed.to_string()],
    )
    .map_err(unavailable("append to the trail"))?;
    Ok(())
}
