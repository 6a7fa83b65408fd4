//! The SQLite store of `valem serve --data DIR`: one file `DIR/valem.db` in WAL mode with
//! `synchronous=FULL`, so that a commit is on disk before it returns. One process serves a
//! directory (it holds `DIR/valem.lock`); within it one connection writes, each commit in a
//! `BEGIN IMMEDIATE` transaction, and reads run side by side on their own connections.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use serde_json::{Map, Value};

use super::{ModelChange, ModelStore, StoreError, StoredBlob, StoredModel};
use crate::audit::{GENESIS, Trail, seal};

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
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
    _lock: File,
}

fn unavailable(what: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |e| StoreError::Unavailable(format!("SQLite: {what}: {e}"))
}

fn json(what: &str, id: &str, text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("the stored {what} of {id:?} is not JSON: {e}")))
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
            TryLockError::WouldBlock => StoreError::Unavailable(format!("--data {shown} is in use by another valem process")),
            TryLockError::Error(e) => StoreError::Unavailable(format!("--data {shown}: cannot lock {LOCK}: {e}")),
        })?;
        let path = dir.join(DATABASE);
        let writer = connect(&path, busy_timeout, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE)?;
        writer
            .pragma_update(None, "journal_mode", "WAL")
            .and_then(|_| writer.execute_batch(SCHEMA))
            .map_err(|e| StoreError::Unavailable(format!("--data {shown}: cannot set up {}: {e}", path.display())))?;
        Ok(SqliteStore { path, busy_timeout, writer: Mutex::new(writer), readers: Mutex::default(), _lock: lock })
    }

    fn writer(&self) -> MutexGuard<'_, Connection> {
        self.writer.lock().unwrap_or_else(|p| p.into_inner())
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

    /// Runs `write` in one `BEGIN IMMEDIATE` transaction, committed when it succeeds.
    fn write<T>(&self, write: impl FnOnce(&Connection) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let conn = self.writer();
        let mut tx = Transaction::begin(conn)?;
        let value = write(&tx.conn)?;
        tx.commit()?;
        Ok(value)
    }
}

fn connect(path: &Path, busy_timeout: Duration, flags: OpenFlags) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| StoreError::Unavailable(format!("cannot open {}: {e}", path.display())))?;
    conn.busy_timeout(busy_timeout).map_err(unavailable("busy timeout"))?;
    conn.pragma_update(None, "synchronous", "FULL").map_err(unavailable("synchronous=FULL"))?;
    Ok(conn)
}

/// A write transaction on the writer connection; rolled back when dropped uncommitted.
struct Transaction<'a> {
    conn: MutexGuard<'a, Connection>,
    open: bool,
}

impl<'a> Transaction<'a> {
    fn begin(conn: MutexGuard<'a, Connection>) -> Result<Transaction<'a>, StoreError> {
        conn.execute_batch("BEGIN IMMEDIATE").map_err(unavailable("begin"))?;
        Ok(Transaction { conn, open: true })
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        self.conn.execute_batch("COMMIT").map_err(unavailable("commit"))?;
        self.open = false;
        Ok(())
    }
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
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
    let model = StoredModel { spec: json("spec", id, &spec)?, state: json("state", id, &state)? };
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
        self.write(|conn| {
            if revision_of(conn, id)?.is_some() {
                return Err(StoreError::Exists(id.to_owned()));
            }
            // A trail left by a model of this id deleted outside the server starts over.
            conn.execute("DELETE FROM audit WHERE model_id = ?1", [id]).map_err(unavailable("create a model"))?;
            conn.execute(
                "INSERT INTO models (id, spec, state, revision) VALUES (?1, ?2, ?3, 1)",
                params![id, model.spec.to_string(), model.state.to_string()],
            )
            .map_err(unavailable("create a model"))?;
            Ok(())
        })
    }

    fn begin(&self, id: &str) -> Result<Box<dyn ModelChange + '_>, StoreError> {
        let tx = Transaction::begin(self.writer())?;
        let revision = revision_of(&tx.conn, id)?.ok_or_else(|| StoreError::NotFound(id.to_owned()))?;
        Ok(Box::new(SqliteChange { tx, id: id.to_owned(), revision }))
    }

    fn delete(&self, id: &str) -> Result<bool, StoreError> {
        self.write(|conn| {
            let gone = conn.execute("DELETE FROM models WHERE id = ?1", [id]).map_err(unavailable("delete a model"))?;
            conn.execute("DELETE FROM audit WHERE model_id = ?1", [id]).map_err(unavailable("delete a trail"))?;
            Ok(gone > 0)
        })
    }

    fn trail(&self, id: &str) -> Result<Trail, StoreError> {
        self.read(|conn| {
            let mut statement = conn
                .prepare_cached("SELECT record FROM audit WHERE model_id = ?1 ORDER BY sequence")
                .map_err(unavailable("read a trail"))?;
            let rows = statement.query_map([id], |r| r.get::<_, String>(0)).map_err(unavailable("read a trail"))?;
            let mut records = Vec::new();
            for row in rows {
                let text = row.map_err(unavailable("read a trail"))?;
                records.push(serde_json::from_str(&text).unwrap_or(Value::String(text)));
            }
            Ok(Trail { anchor: GENESIS.into(), records })
        })
    }

    fn put_blob(&self, id: &str, media_type: &str, bytes: &[u8], max_total: u64) -> Result<(), StoreError> {
        self.write(|conn| {
            let held = conn
                .query_row("SELECT EXISTS (SELECT 1 FROM blobs WHERE id = ?1)", [id], |r| r.get::<_, bool>(0))
                .map_err(unavailable("read a blob"))?;
            if held {
                return Ok(());
            }
            let total = conn
                .query_row("SELECT coalesce(sum(length(bytes)), 0) FROM blobs", [], |r| r.get::<_, i64>(0))
                .map_err(unavailable("measure the blobs"))? as u64;
            if total + bytes.len() as u64 > max_total {
                return Err(StoreError::Full(format!(
                    "the blob store would hold more than {max_total} bytes, as much as it may (--max-blob-store-bytes)"
                )));
            }
            conn.execute("INSERT INTO blobs (id, media_type, bytes) VALUES (?1, ?2, ?3)", params![id, media_type, bytes])
                .map_err(unavailable("store a blob"))?;
            Ok(())
        })
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

struct SqliteChange<'a> {
    tx: Transaction<'a>,
    id: String,
    revision: u64,
}

impl ModelChange for SqliteChange<'_> {
    fn revision(&self) -> u64 {
        self.revision
    }

    fn load(&self) -> Result<StoredModel, StoreError> {
        load_from(&self.tx.conn, &self.id)?.map(|(m, _)| m).ok_or_else(|| StoreError::NotFound(self.id.clone()))
    }

    fn commit(
        mut self: Box<Self>,
        model: &StoredModel,
        audit: Option<Map<String, Value>>,
    ) -> Result<u64, StoreError> {
        let conn = &self.tx.conn;
        let revision = self.revision + 1;
        conn.execute(
            "UPDATE models SET spec = ?2, state = ?3, revision = ?4 WHERE id = ?1",
            params![self.id, model.spec.to_string(), model.state.to_string(), revision as i64],
        )
        .map_err(unavailable("store a model"))?;
        if let Some(record) = audit {
            let last = conn
                .query_row(
                    "SELECT sequence, record FROM audit WHERE model_id = ?1 ORDER BY sequence DESC LIMIT 1",
                    [&self.id],
                    |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)),
                )
                .optional()
                .map_err(unavailable("read the trail's end"))?;
            let (sequence, prev) = match last {
                None => (1, GENESIS.to_owned()),
                Some((sequence, text)) => {
                    let prev = serde_json::from_str::<Value>(&text)
                        .ok()
                        .and_then(|r| r.get("hash").and_then(Value::as_str).map(str::to_owned))
                        .ok_or_else(|| {
                            StoreError::Corrupt(format!(
                                "the last audit record of {:?} holds no hash; the trail cannot go on",
                                self.id
                            ))
                        })?;
                    (sequence as u64 + 1, prev)
                }
            };
            let sealed = Value::Object(seal(record, sequence, &prev));
            conn.execute(
                "INSERT INTO audit (model_id, sequence, record) VALUES (?1, ?2, ?3)",
                params![self.id, sequence as i64, sealed.to_string()],
            )
            .map_err(unavailable("append to the trail"))?;
        }
        self.tx.commit()?;
        Ok(revision)
    }
}
