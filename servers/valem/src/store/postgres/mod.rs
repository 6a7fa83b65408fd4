//! The PostgreSQL store of `valem serve --database URL`: several instances serve the same
//! models from one database. A change holds its model's row `FOR UPDATE` in a transaction from
//! `begin` to `commit`, so the changes of one model are one after another across every
//! instance, and its audit record is sealed onto the last record read under that lock: the trail
//! stays one chain. A commit NOTIFYs the model id in the same transaction; `watch` hears the
//! other instances' (see `listen.rs`). Connections come from a small bounded pool (`pool.rs`).
//! TLS is not spoken: reach the database over a private network, a Unix socket or a tunnel.

mod listen;
mod pool;

use std::cell::RefCell;
use std::hash::{BuildHasher, Hasher};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use postgres::config::Host;
use postgres::error::SqlState;
use postgres::{Client, Config};
use serde_json::{Map, Value};

use self::pool::{Pool, Pooled};
use super::{
    ModelChange, ModelStore, StoreError, StoredBlob, StoredModel, blobs_full, next_link, stored_json, stored_record,
};
use crate::audit::seal;

/// The channel every commit and deletion is NOTIFYed on.
const CHANNEL: &str = "valem_commits";
/// The longest model id the store keeps: an id is the key of an index and the payload of a
/// notification, both bounded in PostgreSQL (some 2,700 and 8,000 bytes).
pub const MAX_ID_BYTES: usize = 1024;
/// Advisory lock keys: one instance at a time creates the tables, or adds a blob (so that the
/// blobs' total holds across instances).
const SCHEMA_LOCK: i64 = 0x7661_6c65_6d01;
const BLOBS_LOCK: i64 = 0x7661_6c65_6d02;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS models (
    id TEXT COLLATE \"C\" PRIMARY KEY,
    spec TEXT NOT NULL,
    state TEXT NOT NULL,
    revision BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    model_id TEXT COLLATE \"C\" NOT NULL,
    sequence BIGINT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (model_id, sequence)
);
CREATE TABLE IF NOT EXISTS blobs (
    id TEXT COLLATE \"C\" PRIMARY KEY,
    media_type TEXT NOT NULL,
    bytes BYTEA NOT NULL
);
";

/// How the store uses the database.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PostgresOptions {
    /// Connections open at once (the LISTEN connection aside).
    pub pool: usize,
    /// The longest wait to connect, for a free connection, for a model another instance holds,
    /// and for one statement.
    pub timeout: Duration,
}

impl PostgresOptions {
    pub const DEFAULT: PostgresOptions = PostgresOptions { pool: 8, timeout: Duration::from_secs(30) };
}

/// Where and how to connect: the parsed URL and the settings of every session.
#[derive(Clone)]
struct Connector {
    config: Config,
    setup: String,
}

pub struct PostgresStore {
    shown: String,
    connector: Connector,
    pool: Pool,
    timeout: Duration,
    /// Names this process in its notifications, so that it does not hear its own.
    instance: String,
    /// Tells the LISTEN thread to end.
    stop: Arc<AtomicBool>,
}

/// What a PostgreSQL error says: the server's message and code when it gave one.
fn describe_error(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} {}: {}", db.severity(), db.code().code(), db.message()),
        None => match std::error::Error::source(e) {
            Some(cause) if !e.to_string().contains(&cause.to_string()) => format!("{e}: {cause}"),
            _ => e.to_string(),
        },
    }
}

fn unavailable(what: &str) -> impl Fn(postgres::Error) -> StoreError + '_ {
    move |e| StoreError::Unavailable(format!("PostgreSQL: {what}: {}", describe_error(&e)))
}

/// `host:port/db` of `config`: what the startup line and errors may show (never the password).
fn shown(config: &Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(n, host)| {
            let host = match host {
                Host::Tcp(name) => name.clone(),
                Host::Unix(path) => path.display().to_string(),
            };
            let port = config.get_ports().get(n).or(config.get_ports().first()).copied().unwrap_or(5432);
            format!("{host}:{port}")
        })
        .collect();
    format!("{}/{}", hosts.join(","), config.get_dbname().or(config.get_user()).unwrap_or(""))
}

/// An id no other process is likely to have picked: the standard library's random hash keys,
/// the process id and the time.
fn instance_id() -> String {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    hasher
        .write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
    format!("{:016x}", hasher.finish())
}

impl Connector {
    fn connect(&self) -> Result<Client, StoreError> {
        pool::connect(self)
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (a `postgres://` URL or `key=value` pairs) and creates
    /// the tables when absent; a clear error, without the password, when it cannot.
    pub fn open(url: &str, options: PostgresOptions) -> Result<PostgresStore, StoreError> {
        let mut config: Config = url.parse().map_err(|_| {
            StoreError::Unavailable(
                "--database is not a PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE)".into(),
            )
        })?;
        config.connect_timeout(options.timeout).application_name("valem");
        let ms = options.timeout.as_millis();
        // A statement waiting for a model's lock is told apart by its own, shorter timeout. An
        // instance gone silent in the middle of a change (a cut network) holds its model no
        // longer than twice the timeout. (0 turns each off in PostgreSQL: the flag starts at 1.)
        let ms = ms.max(1);
        let setup = format!(
            "SET lock_timeout = {ms}; SET statement_timeout = {long}; SET idle_in_transaction_session_timeout = {long}",
            long = 2 * ms
        );
        let connector = Connector { config, setup };
        let shown = shown(&connector.config);
        let in_context = |e: StoreError| match e {
            StoreError::Unavailable(m) => StoreError::Unavailable(format!("{m} (--database {shown})")),
            other => other,
        };
        let mut client = connector.connect().map_err(in_context)?;
        create_tables(&mut client).map_err(in_context)?;
        let pool = Pool::new(connector.clone(), options.pool, options.timeout);
        Ok(PostgresStore {
            shown,
            connector,
            pool,
            timeout: options.timeout,
            instance: instance_id(),
            stop: Arc::default(),
        })
    }

    /// Runs `write` in one transaction, committed when it succeeds.
    fn write<T>(
        &self,
        write: impl FnOnce(&mut postgres::Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut conn = self.pool.get()?;
        let mut tx = conn.transaction().map_err(unavailable("begin"))?;
        let value = write(&mut tx)?;
        tx.commit().map_err(unavailable("commit"))?;
        Ok(value)
    }

    /// The row `sql` gives for `id`, if any.
    fn row(&self, sql: &str, id: &str, what: &str) -> Result<Option<postgres::Row>, StoreError> {
        self.pool.get()?.query_opt(sql, &[&id]).map_err(unavailable(what))
    }

    fn notify(&self, tx: &mut impl postgres::GenericClient, id: &str) -> Result<(), StoreError> {
        tx.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &listen::payload(&self.instance, id)])
            .map(drop)
            .map_err(unavailable("notify the other instances"))
    }
}

impl Drop for PostgresStore {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn create_tables(client: &mut Client) -> Result<(), StoreError> {
    let mut tx = client.transaction().map_err(unavailable("begin"))?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK]).map_err(unavailable("lock the schema"))?;
    tx.batch_execute(SCHEMA).map_err(unavailable("create the tables"))?;
    tx.commit().map_err(unavailable("create the tables"))
}

fn load_from(client: &mut impl postgres::GenericClient, id: &str) -> Result<Option<(StoredModel, u64)>, StoreError> {
    let row = client
        .query_opt("SELECT spec, state, revision FROM models WHERE id = $1", &[&id])
        .map_err(unavailable("read a model"))?;
    let Some(row) = row else { return Ok(None) };
    let model =
        StoredModel { spec: stored_json("spec", id, row.get(0))?, state: stored_json("state", id, row.get(1))? };
    Ok(Some((model, row.get::<_, i64>(2) as u64)))
}

impl ModelStore for PostgresStore {
    fn describe(&self) -> String {
        format!("PostgreSQL at {}", self.shown)
    }

    fn ids(&self, after: Option<&str>, limit: usize) -> Result<(Vec<String>, bool), StoreError> {
        let rows = self
            .pool
            .get()?
            .query(
                "SELECT id FROM models WHERE id > $1 ORDER BY id LIMIT $2",
                &[&after.unwrap_or(""), &(limit.saturating_add(1).min(i64::MAX as usize) as i64)],
            )
            .map_err(unavailable("list models"))?;
        let mut ids: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
        let more = ids.len() > limit;
        ids.truncate(limit);
        Ok((ids, more))
    }

    fn count(&self) -> Result<usize, StoreError> {
        let row =
            self.pool.get()?.query_one("SELECT count(*) FROM models", &[]).map_err(unavailable("count models"))?;
        Ok(row.get::<_, i64>(0) as usize)
    }

    fn load(&self, id: &str) -> Result<Option<(StoredModel, u64)>, StoreError> {
        load_from(&mut *self.pool.get()?, id)
    }

    fn revision(&self, id: &str) -> Result<Option<u64>, StoreError> {
        let row = self.row("SELECT revision FROM models WHERE id = $1", id, "read a revision")?;
        Ok(row.map(|r| r.get::<_, i64>(0) as u64))
    }

    fn create(&self, id: &str, model: &StoredModel) -> Result<(), StoreError> {
        if id.len() > MAX_ID_BYTES {
            return Err(StoreError::Unavailable(format!(
                "a model id stored in PostgreSQL is at most {MAX_ID_BYTES} bytes; this one has {}",
                id.len()
            )));
        }
        self.write(|tx| {
            let inserted = tx
                .execute(
                    "INSERT INTO models (id, spec, state, revision) VALUES ($1, $2, $3, 1) ON CONFLICT (id) DO NOTHING",
                    &[&id, &model.spec.to_string(), &model.state.to_string()],
                )
                .map_err(unavailable("create a model"))?;
            if inserted == 0 {
                return Err(StoreError::Exists(id.to_owned()));
            }
            // A trail left by a model of this id deleted outside the server starts over.
            tx.execute("DELETE FROM audit WHERE model_id = $1", &[&id]).map_err(unavailable("create a model"))?;
            Ok(())
        })
    }

    fn begin(&self, id: &str) -> Result<Box<dyn ModelChange + '_>, StoreError> {
        let mut conn = self.pool.get()?;
        conn.batch_execute("BEGIN").map_err(unavailable("begin"))?;
        let mut change =
            PostgresChange { store: self, conn: RefCell::new(conn), id: id.to_owned(), revision: 0, open: true };
        let revision =
            change.conn.get_mut().query_opt("SELECT revision FROM models WHERE id = $1 FOR UPDATE", &[&id]).map_err(
                |e| match e.code() {
                    Some(&SqlState::LOCK_NOT_AVAILABLE) => StoreError::Unavailable(format!(
                        "the model {id:?} stayed held by another change for {} ms (--database-timeout-ms)",
                        self.timeout.as_millis()
                    )),
                    _ => unavailable("take a model")(e),
                },
            )?;
        change.revision = revision.ok_or_else(|| StoreError::NotFound(id.to_owned()))?.get::<_, i64>(0) as u64;
        Ok(Box::new(change))
    }

    fn delete(&self, id: &str) -> Result<bool, StoreError> {
        self.write(|tx| {
            let gone = tx.execute("DELETE FROM models WHERE id = $1", &[&id]).map_err(unavailable("delete a model"))?;
            tx.execute("DELETE FROM audit WHERE model_id = $1", &[&id]).map_err(unavailable("delete a trail"))?;
            if gone > 0 {
                self.notify(tx, id)?;
            }
            Ok(gone > 0)
        })
    }

    fn next_sequence(&self, id: &str) -> Result<u64, StoreError> {
        let row = self.row("SELECT max(sequence) FROM audit WHERE model_id = $1", id, "read the trail's end")?;
        Ok(row.and_then(|r| r.get::<_, Option<i64>>(0)).map_or(0, |n| n as u64 + 1))
    }

    fn records(&self, id: &str, sequences: Range<u64>) -> Result<Vec<Value>, StoreError> {
        let bound = |n: u64| n.min(i64::MAX as u64) as i64;
        let rows = self
            .pool
            .get()?
            .query(
                "SELECT record FROM audit WHERE model_id = $1 AND sequence >= $2 AND sequence < $3 ORDER BY sequence",
                &[&id, &bound(sequences.start), &bound(sequences.end)],
            )
            .map_err(unavailable("read a trail"))?;
        Ok(rows.iter().map(|row| stored_record(row.get(0))).collect())
    }

    fn put_blob(&self, id: &str, media_type: &str, bytes: &[u8], max_total: u64) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&BLOBS_LOCK]).map_err(unavailable("lock the blobs"))?;
            let held = tx
                .query_one("SELECT EXISTS (SELECT 1 FROM blobs WHERE id = $1)", &[&id])
                .map_err(unavailable("read a blob"))?;
            if held.get::<_, bool>(0) {
                return Ok(());
            }
            let total = tx
                .query_one("SELECT coalesce(sum(octet_length(bytes)), 0)::BIGINT FROM blobs", &[])
                .map_err(unavailable("measure the blobs"))?
                .get::<_, i64>(0) as u64;
            if total + bytes.len() as u64 > max_total {
                return Err(blobs_full(max_total));
            }
            tx.execute("INSERT INTO blobs (id, media_type, bytes) VALUES ($1, $2, $3)", &[&id, &media_type, &bytes])
                .map_err(unavailable("store a blob"))?;
            Ok(())
        })
    }

    fn get_blob(&self, id: &str) -> Result<Option<StoredBlob>, StoreError> {
        let row = self.row("SELECT media_type, bytes FROM blobs WHERE id = $1", id, "read a blob")?;
        Ok(row.map(|r| StoredBlob { media_type: r.get(0), bytes: r.get(1) }))
    }

    fn watch(&self, on_commit: Arc<dyn Fn(&str) + Send + Sync>) {
        listen::spawn(self.connector.clone(), self.instance.clone(), Arc::clone(&self.stop), on_commit);
    }
}

/// A model held `FOR UPDATE` in an open transaction on a connection of the pool.
struct PostgresChange<'a> {
    store: &'a PostgresStore,
    /// Borrowed mutably by each statement (`load` has only `&self`).
    conn: RefCell<Pooled<'a>>,
    id: String,
    revision: u64,
    /// The transaction is still open (to be rolled back when dropped).
    open: bool,
}

impl PostgresChange<'_> {
    /// The sequence and the hash the next record of the trail follows: those of the last
    /// record, read under the model's lock.
    fn trail_end(&mut self) -> Result<(u64, String), StoreError> {
        let last = self
            .conn
            .get_mut()
            .query_opt(
                "SELECT sequence, record FROM audit WHERE model_id = $1 ORDER BY sequence DESC LIMIT 1",
                &[&self.id],
            )
            .map_err(unavailable("read the trail's end"))?;
        next_link(&self.id, last.map(|row| (row.get::<_, i64>(0) as u64, row.get(1))))
    }
}

impl ModelChange for PostgresChange<'_> {
    fn revision(&self) -> u64 {
        self.revision
    }

    fn load(&self) -> Result<StoredModel, StoreError> {
        let stored = load_from(&mut **self.conn.borrow_mut(), &self.id)?;
        stored.map(|(model, _)| model).ok_or_else(|| StoreError::NotFound(self.id.clone()))
    }

    fn commit(mut self: Box<Self>, model: &StoredModel, audit: Option<Map<String, Value>>) -> Result<u64, StoreError> {
        let revision = self.revision + 1;
        self.conn
            .get_mut()
            .execute(
                "UPDATE models SET spec = $2, state = $3, revision = $4 WHERE id = $1",
                &[&self.id, &model.spec.to_string(), &model.state.to_string(), &(revision as i64)],
            )
            .map_err(unavailable("store a model"))?;
        if let Some(record) = audit {
            let (sequence, prev) = self.trail_end()?;
            let sealed = Value::Object(seal(record, sequence, &prev));
            self.conn
                .get_mut()
                .execute(
                    "INSERT INTO audit (model_id, sequence, record) VALUES ($1, $2, $3)",
                    &[&self.id, &(sequence as i64), &sealed.to_string()],
                )
                .map_err(unavailable("append to the trail"))?;
        }
        let store = self.store;
        let conn = self.conn.get_mut();
        store.notify(&mut **conn, &self.id)?;
        self.open = false;
        if let Err(e) = conn.batch_execute("COMMIT") {
            // Whether it committed is unknown (the connection may be gone): a reader sees by
            // the revision.
            conn.close();
            return Err(unavailable("commit")(e));
        }
        Ok(revision)
    }
}

impl Drop for PostgresChange<'_> {
    fn drop(&mut self) {
        let conn = self.conn.get_mut();
        if self.open && conn.batch_execute("ROLLBACK").is_err() {
            conn.close();
        }
    }
}
