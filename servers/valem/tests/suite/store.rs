//! The behaviour every durable `ModelStore` owes the server, as functions of a store: each takes
//! `open`, which opens THE SAME store again (a restart), and is called once per store (SQLite in
//! `sqlite.rs`; PostgreSQL beside it). A store opened by `open` is dropped before the next one
//! opens, as a restarted process would.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Map, Value, json};
use tooltable::Server;
use valem::options::Limits;
use valem::store::{ModelChange, ModelStore, StoreError, StoredBlob, StoredModel};
use valem::tools::registry::Models;

use crate::support::in_process::call;

pub type Open<'a> = &'a dyn Fn() -> Arc<dyn ModelStore>;

fn server(store: Arc<dyn ModelStore>) -> Server<Models> {
    valem::server_durable(Limits::default(), store).unwrap()
}

/// A model whose derived `total` is the sum of its inputs, so a half-applied commit shows.
pub fn summing_spec(id: &str) -> Value {
    json!({
        "id": id,
        "version": "1.0.0",
        "schema": { "type": "object", "properties": { "n": { "type": "integer", "maximum": 1000 } } },
        "derivations": [{ "path": "$.total", "expr": "$sum([n, m, w0, w1, w2, w3])" }],
    })
}

fn state(server: &Server<Models>, id: &str) -> Value {
    call(server, "get_state", json!({ "id": id })).unwrap()
}

/// Models, state, history (with what `at` rebuilds from it), audit trail and blobs outlive the
/// store's process.
pub fn a_restart_keeps_models_state_history_audit_and_blobs(open: Open) {
    let before = {
        let s = server(open());
        call(&s, "create_model", json!({ "spec": summing_spec("kept") })).unwrap();
        for n in 1..=3 {
            call(&s, "mutate", json!({ "id": "kept", "mutations": { "$.n": n } })).unwrap();
        }
        call(&s, "patch_model", json!({ "id": "kept", "patch": [{ "op": "add", "path": "/m", "value": 10 }] }))
            .unwrap();
        let blob = call(&s, "upload_blob", json!({ "data": "aGVsbG8=", "mediaType": "text/plain" })).unwrap();
        call(&s, "mutate", json!({ "id": "kept", "mutations": { "$.file": blob } })).unwrap();
        call(&s, "create_model", json!({ "spec": summing_spec("other") })).unwrap();
        let history = call(&s, "get_history", json!({ "id": "kept" })).unwrap();
        let second = history.as_array().unwrap()[2].as_str().unwrap().to_owned();
        let at = call(&s, "get_state", json!({ "id": "kept", "at": second })).unwrap();
        assert!(at["n"].as_u64().is_some_and(|n| n < 3), "an earlier state: {at}");
        let audit = call(&s, "get_audit", json!({ "id": "kept" })).unwrap();
        (state(&s, "kept"), history, second, at, audit, blob)
    };
    let (state_before, history, second, at, audit, blob) = before;
    assert_eq!(state_before["total"], 13, "{state_before}");
    let s = server(open());
    assert_eq!(call(&s, "list_models", json!({})).unwrap(), json!(["kept", "other"]));
    assert_eq!(state(&s, "kept"), state_before);
    assert_eq!(call(&s, "get_history", json!({ "id": "kept" })).unwrap(), history);
    assert_eq!(call(&s, "get_state", json!({ "id": "kept", "at": second })).unwrap(), at);
    assert_eq!(call(&s, "get_audit", json!({ "id": "kept" })).unwrap(), audit);
    assert_eq!(audit.as_array().unwrap().len(), 5);
    let verified = call(&s, "verify_audit", json!({ "id": "kept" })).unwrap();
    assert_eq!(verified, json!({ "valid": true, "recordsChecked": 5, "firstBrokenSequence": null, "detail": "ok" }));
    let id = blob["$blobId"].clone();
    let down = call(&s, "download_blob", json!({ "blobId": id, "modelId": "kept" })).unwrap();
    assert_eq!(down["data"], "aGVsbG8=");
    // The trail goes on from where it was; a taken id, stored before the restart, is refused.
    call(&s, "mutate", json!({ "id": "kept", "mutations": { "$.n": 4 } })).unwrap();
    assert_eq!(call(&s, "get_audit", json!({ "id": "kept", "limit": 1 })).unwrap()[0]["sequence"], 5);
    let duplicate = call(&s, "create_model", json!({ "spec": summing_spec("kept") })).unwrap_err();
    assert_eq!((&duplicate["error"], &duplicate["id"]), (&json!("Duplicate id"), &json!("kept")), "{duplicate}");
    // Restore and evolve are kept too; delete takes the trail with it.
    let snapshot = call(&s, "snapshot", json!({ "id": "kept" })).unwrap();
    call(&s, "mutate", json!({ "id": "kept", "mutations": { "$.n": 5 } })).unwrap();
    call(&s, "restore", json!({ "id": "kept", "snapshot": snapshot })).unwrap();
    let evolution = json!({ "expectedVersion": "1.0.0", "newVersion": "1.1.0" });
    call(&s, "evolve_spec", json!({ "id": "kept", "evolution": evolution })).unwrap();
    call(&s, "delete_model", json!({ "id": "other" })).unwrap();
    let restored = state(&s, "kept");
    drop(s);
    let s = server(open());
    assert_eq!(state(&s, "kept"), restored);
    assert_eq!(restored["n"], 4);
    assert_eq!(call(&s, "get_model_info", json!({ "id": "kept" })).unwrap()["version"], "1.1.0");
    assert_eq!(call(&s, "list_models", json!({})).unwrap(), json!(["kept"]));
    assert_eq!(call(&s, "get_audit", json!({ "id": "other" })).unwrap_err()["error"], "Model not found");
}

/// Writers on one model through two servers over one store (two instances' caches) lose no
/// write: each commit sees the one before, whichever instance made it.
pub fn concurrent_commits_on_one_model_serialize(open: Open) {
    const WRITERS: usize = 4;
    const EACH: usize = 25;
    let store = open();
    let servers = [server(Arc::clone(&store)), server(Arc::clone(&store))];
    call(&servers[0], "create_model", json!({ "spec": summing_spec("shared") })).unwrap();
    std::thread::scope(|scope| {
        for w in 0..WRITERS {
            let s = &servers[w % 2];
            scope.spawn(move || {
                for i in 1..=EACH {
                    call(s, "mutate", json!({ "id": "shared", "mutations": { format!("$.w{w}"): i } })).unwrap();
                }
            });
        }
    });
    for s in &servers {
        let state = state(s, "shared");
        for w in 0..WRITERS {
            assert_eq!(state[format!("w{w}")], EACH, "{state}");
        }
        assert_eq!(state["total"], WRITERS * EACH, "{state}");
    }
    let trail = call(&servers[1], "get_audit", json!({ "id": "shared", "limit": 10_000 })).unwrap();
    let sequences: Vec<u64> = trail.as_array().unwrap().iter().rev().map(|r| r["sequence"].as_u64().unwrap()).collect();
    assert_eq!(sequences, (0..(WRITERS * EACH) as u64).collect::<Vec<_>>());
    assert_eq!(call(&servers[0], "verify_audit", json!({ "id": "shared" })).unwrap()["valid"], true);
    // A model one instance deletes is gone for the other, which held a copy.
    call(&servers[0], "delete_model", json!({ "id": "shared" })).unwrap();
    let gone = call(&servers[1], "mutate", json!({ "id": "shared", "mutations": { "$.w0": 0 } })).unwrap_err();
    assert_eq!(gone["error"], "Model not found");
    assert_eq!(call(&servers[1], "get_state", json!({ "id": "shared" })).unwrap_err()["error"], "Model not found");
    assert_eq!(call(&servers[1], "list_models", json!({})).unwrap(), json!([]));
}

/// A store that refuses every commit while `failing` is set, as a full disk would.
struct Refusing {
    inner: Arc<dyn ModelStore>,
    failing: AtomicBool,
}

struct RefusedChange<'a> {
    inner: Box<dyn ModelChange + 'a>,
    failing: bool,
}

impl ModelChange for RefusedChange<'_> {
    fn revision(&self) -> u64 {
        self.inner.revision()
    }
    fn load(&self) -> Result<StoredModel, StoreError> {
        self.inner.load()
    }
    fn commit(self: Box<Self>, model: &StoredModel, audit: Option<Map<String, Value>>) -> Result<u64, StoreError> {
        if self.failing {
            return Err(StoreError::Unavailable("disk full".into()));
        }
        self.inner.commit(model, audit)
    }
}

impl ModelStore for Refusing {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn ids(&self, after: Option<&str>, limit: usize) -> Result<(Vec<String>, bool), StoreError> {
        self.inner.ids(after, limit)
    }
    fn count(&self) -> Result<usize, StoreError> {
        self.inner.count()
    }
    fn load(&self, id: &str) -> Result<Option<(StoredModel, u64)>, StoreError> {
        self.inner.load(id)
    }
    fn revision(&self, id: &str) -> Result<Option<u64>, StoreError> {
        self.inner.revision(id)
    }
    fn create(&self, id: &str, model: &StoredModel) -> Result<(), StoreError> {
        self.inner.create(id, model)
    }
    fn begin(&self, id: &str) -> Result<Box<dyn ModelChange + '_>, StoreError> {
        Ok(Box::new(RefusedChange { inner: self.inner.begin(id)?, failing: self.failing.load(Ordering::SeqCst) }))
    }
    fn delete(&self, id: &str) -> Result<bool, StoreError> {
        self.inner.delete(id)
    }
    fn next_sequence(&self, id: &str) -> Result<u64, StoreError> {
        self.inner.next_sequence(id)
    }
    fn records(&self, id: &str, sequences: std::ops::Range<u64>) -> Result<Vec<Value>, StoreError> {
        self.inner.records(id, sequences)
    }
    fn put_blob(&self, id: &str, media_type: &str, bytes: &[u8], max_total: u64) -> Result<(), StoreError> {
        self.inner.put_blob(id, media_type, bytes, max_total)
    }
    fn get_blob(&self, id: &str) -> Result<Option<StoredBlob>, StoreError> {
        self.inner.get_blob(id)
    }
    fn watch(&self, on_commit: Arc<dyn Fn(&str) + Send + Sync>) {
        self.inner.watch(on_commit)
    }
}

/// A commit the store refuses fails the call and changes nothing: not the cached model, not the
/// stored one, not the trail; a cycle that fails writes nothing.
pub fn a_failed_commit_changes_nothing(open: Open) {
    let refusing = Arc::new(Refusing { inner: open(), failing: AtomicBool::new(false) });
    let s = server(Arc::clone(&refusing) as _);
    call(&s, "create_model", json!({ "spec": summing_spec("f") })).unwrap();
    call(&s, "mutate", json!({ "id": "f", "mutations": { "$.n": 1 } })).unwrap();
    let (kept, history) = (state(&s, "f"), call(&s, "get_history", json!({ "id": "f" })).unwrap());
    let revision = refusing.revision("f").unwrap();

    refusing.failing.store(true, Ordering::SeqCst);
    let refused = call(&s, "mutate", json!({ "id": "f", "mutations": { "$.n": 2 } })).unwrap_err();
    assert_eq!(refused["error"], "Store error", "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("disk full"), "{refused}");
    let patch = json!({ "id": "f", "patch": [{ "op": "replace", "path": "/n", "value": 3 }] });
    assert_eq!(call(&s, "patch_model", patch).unwrap_err()["error"], "Store error");
    let evolution = json!({ "expectedVersion": "1.0.0", "newVersion": "2.0.0" });
    assert_eq!(
        call(&s, "evolve_spec", json!({ "id": "f", "evolution": evolution })).unwrap_err()["error"],
        "Store error"
    );
    assert_eq!(state(&s, "f"), kept);
    assert_eq!(call(&s, "get_history", json!({ "id": "f" })).unwrap(), history);
    assert_eq!(call(&s, "get_model_info", json!({ "id": "f" })).unwrap()["version"], "1.0.0");
    assert_eq!(refusing.revision("f").unwrap(), revision);
    refusing.failing.store(false, Ordering::SeqCst);

    // A cycle the schema refuses stores nothing either.
    call(&s, "mutate", json!({ "id": "f", "mutations": { "$.n": 5000 } })).unwrap_err();
    assert_eq!(refusing.revision("f").unwrap(), revision);
    assert_eq!(call(&s, "get_audit", json!({ "id": "f" })).unwrap().as_array().unwrap().len(), 1);

    call(&s, "mutate", json!({ "id": "f", "mutations": { "$.n": 6 } })).unwrap();
    assert_eq!(call(&s, "get_audit", json!({ "id": "f", "limit": 1 })).unwrap()[0]["sequence"], 1);
    drop(s);
    drop(refusing);
    let s = server(open());
    assert_eq!(state(&s, "f")["total"], 6);
    assert_eq!(call(&s, "verify_audit", json!({ "id": "f" })).unwrap()["valid"], true);
}

/// A change made to a stored audit row outside the server.
pub enum Tamper {
    /// Replaces the record text of `sequence`.
    Set {
        sequence: u64,
        record: String,
    },
    /// Exchanges the records of two sequences.
    Swap(u64, u64),
    Delete(u64),
}

/// Each way of tampering with the stored trail of `model` is found, and `verify_audit` names the
/// first broken sequence and says what is wrong. `edit(model, tamper)` changes the store's
/// rows directly (the store is closed meanwhile); `read(model, sequence)` reads a row's text.
pub fn tampering_with_the_stored_trail_is_found(
    open: Open,
    edit: &dyn Fn(&str, Tamper),
    read: &dyn Fn(&str, u64) -> String,
) {
    let verify = |id: &str| {
        let s = server(open());
        call(&s, "verify_audit", json!({ "id": id })).unwrap()
    };
    {
        let s = server(open());
        for id in ["edited", "reordered", "deleted", "garbled"] {
            call(&s, "create_model", json!({ "spec": summing_spec(id) })).unwrap();
            for n in 1..=4 {
                call(&s, "mutate", json!({ "id": id, "mutations": { "$.n": n } })).unwrap();
            }
        }
    }
    let broken = |checked: u64, sequence: Value, detail: &str| json!({ "valid": false, "recordsChecked": checked, "firstBrokenSequence": sequence, "detail": detail });
    // The trail's records are sequences 0 to 3, each at the line index of its sequence.
    let mut record: Value = serde_json::from_str(&read("edited", 1)).unwrap();
    record["mutations"]["$.n"] = json!(20);
    edit("edited", Tamper::Set { sequence: 1, record: record.to_string() });
    assert_eq!(verify("edited"), broken(2, json!(1), "content hash mismatch (record was altered)"));

    edit("reordered", Tamper::Swap(1, 2));
    let reorder = "prevHash does not match the preceding record (reorder or deletion)";
    assert_eq!(verify("reordered"), broken(2, json!(2), reorder));

    edit("deleted", Tamper::Delete(2));
    assert_eq!(verify("deleted"), broken(3, json!(3), reorder));

    edit("garbled", Tamper::Set { sequence: 1, record: "{not json".into() });
    assert_eq!(verify("garbled"), broken(2, Value::Null, "unreadable audit line at position 1"));

    let mut unchained: Value = serde_json::from_str(&read("edited", 0)).unwrap();
    unchained.as_object_mut().unwrap().remove("hash");
    edit("edited", Tamper::Set { sequence: 0, record: unchained.to_string() });
    assert_eq!(verify("edited"), broken(1, json!(0), "record is not hash-chained"));
}
