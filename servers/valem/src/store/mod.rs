//! The durable model store: where `valem serve --data DIR` (SQLite) or a PostgreSQL database
//! keeps every model, its audit trail and the blobs, so that a restart loses nothing. With a
//! store the registry's models are a cache of it: every commit is written here, in one
//! transaction with its audit record, before the call is acknowledged.
//!
//! A stored model is opaque JSON to the store (`Model` writes and reads it, see
//! `engine/stored.rs`). Every method is synchronous and is called only on blocking threads
//! (the evaluation pool or `spawn_blocking`), never on the I/O threads.
//!
//! Tables (every store alike): `models(id PK, spec, state, revision)`,
//! `audit(model_id, sequence, record)` (the sealed record as JSON text, PK (model_id, sequence)),
//! `blobs(id PK, media_type, bytes)`.

mod batch;
pub mod postgres;
pub mod sqlite;

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use serde_json::{Map, Value};

/// A model as the store keeps it: its spec as the client wrote it, and its state (document,
/// derived and meta caches, history with its undo journals), both JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredModel {
    pub spec: Value,
    pub state: Value,
}

/// A blob as the store keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredBlob {
    pub media_type: String,
    pub bytes: Vec<u8>,
}

/// Why a store operation failed. The message is for a person and never holds a password or key.
#[derive(Debug, Clone, PartialEq)]
pub enum StoreError {
    /// `create`: a model of this id is stored already.
    Exists(String),
    /// `begin`: no model of this id is stored.
    NotFound(String),
    /// `put_blob`: the blobs together would pass the total given.
    Full(String),
    /// What is stored cannot be read back (a row altered outside the server, a bad JSON text).
    Corrupt(String),
    /// The store cannot be reached or refused the operation (I/O, locks, connection).
    Unavailable(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Exists(id) => write!(f, "a model {id:?} is stored already"),
            StoreError::NotFound(id) => write!(f, "no model {id:?} is stored"),
            StoreError::Full(m) | StoreError::Corrupt(m) | StoreError::Unavailable(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for StoreError {}

/// Where the models of a durable server are kept. Shared by every instance that serves the same
/// data; the store alone decides which commit of a model comes first.
pub trait ModelStore: Send + Sync {
    /// What the store is, for the startup line: `SQLite at DIR/valem.db`; never a password.
    fn describe(&self) -> String;

    /// Up to `limit` ids in alphabetical order, after `after` when given; and whether more follow.
    fn ids(&self, after: Option<&str>, limit: usize) -> Result<(Vec<String>, bool), StoreError>;

    /// How many models are stored.
    fn count(&self) -> Result<usize, StoreError>;

    /// The model `id` and its revision; `None` when there is none.
    fn load(&self, id: &str) -> Result<Option<(StoredModel, u64)>, StoreError>;

    /// The revision of the model `id` (cheap: a cache compares it with its own to see another
    /// instance's commit); `None` when there is none.
    fn revision(&self, id: &str) -> Result<Option<u64>, StoreError>;

    /// Stores a new model at revision 1, durable before it returns; `StoreError::Exists` when
    /// the id is taken.
    fn create(&self, id: &str, model: &StoredModel) -> Result<(), StoreError>;

    /// Takes the model `id` alone across every instance (SQLite, which one process serves: that
    /// process's lock of the model; PostgreSQL: `SELECT ... FOR UPDATE` of its row inside a
    /// transaction) until the change is committed or
    /// dropped; `StoreError::NotFound` when there is none. Reads nothing but the revision.
    fn begin(&self, id: &str) -> Result<Box<dyn ModelChange + '_>, StoreError>;

    /// Removes the model `id` with its audit trail; `false` when there was none.
    fn delete(&self, id: &str) -> Result<bool, StoreError>;

    /// The sequence the next record of the audit trail of `id` takes: one past its newest
    /// record's (the first record's sequence is 0), 0 when it has none.
    fn next_sequence(&self, id: &str) -> Result<u64, StoreError>;

    /// The records of the audit trail of `id` stored under a sequence within `sequences`,
    /// oldest first (a durable trail keeps every record, from `GENESIS`; it is read a page at
    /// a time). A record that cannot be read as JSON is given as its text, so that
    /// `verify_audit` names it.
    fn records(&self, id: &str, sequences: Range<u64>) -> Result<Vec<Value>, StoreError>;

    /// Keeps a blob under `id` (the same id again changes nothing); `StoreError::Full` when it
    /// is new and the blobs together would then hold more than `max_total` bytes.
    fn put_blob(&self, id: &str, media_type: &str, bytes: &[u8], max_total: u64) -> Result<(), StoreError>;

    /// The blob `id`; `None` when there is none.
    fn get_blob(&self, id: &str) -> Result<Option<StoredBlob>, StoreError>;

    /// Calls `on_commit` with a model's id whenever ANOTHER instance commits or deletes it
    /// (PostgreSQL: LISTEN/NOTIFY). A store only one process opens calls nothing.
    fn watch(&self, on_commit: Arc<dyn Fn(&str) + Send + Sync>);
}

/// A JSON text the store holds (a spec, a state), read back; one that is not JSON is `Corrupt`.
fn stored_json(what: &str, id: &str, text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("the stored {what} of {id:?} is not JSON: {e}")))
}

/// A stored audit record, read back: its JSON, or its text when it is not JSON, so that
/// `verify_audit` names it.
fn stored_record(text: String) -> Value {
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

/// The sequence and the hash the next record of the trail of `id` follows, given its last stored
/// record (sequence and text): the first, sequence 0, follows `GENESIS`.
fn next_link(id: &str, last: Option<(u64, String)>) -> Result<(u64, String), StoreError> {
    let Some((sequence, text)) = last else { return Ok((0, crate::audit::GENESIS.to_owned())) };
    let prev = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|r| r.get("hash").and_then(Value::as_str).map(str::to_owned))
        .ok_or_else(|| {
            StoreError::Corrupt(format!("the last audit record of {id:?} holds no hash; the trail cannot go on"))
        })?;
    Ok((sequence + 1, prev))
}

/// The refusal of a new blob past the blobs' total.
fn blobs_full(max_total: u64) -> StoreError {
    StoreError::Full(crate::blobs::over_total(max_total))
}

/// One model held alone in the store, as `ModelStore::begin` gives it. Dropping it without
/// `commit` rolls back and lets the model go.
pub trait ModelChange {
    /// The revision of the model as stored now (a cache at another revision reloads).
    fn revision(&self) -> u64;

    /// The model as stored now.
    fn load(&self) -> Result<StoredModel, StoreError>;

    /// Writes `model` at the next revision and, when given, seals `audit` onto the model's
    /// trail (`audit::seal`, following the last stored record) in the same transaction; durable
    /// before it returns. Gives the new revision.
    fn commit(self: Box<Self>, model: &StoredModel, audit: Option<Map<String, Value>>) -> Result<u64, StoreError>;
}
