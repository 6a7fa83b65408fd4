//! The SQLite store (`serve --data DIR`): the shared store suite run on it, what opening a
//! directory checks, and tampering done with SQL on the file itself.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{Connection, params};
use serde_json::{Value, json};
use valem::audit::{GENESIS, seal};
use valem::store::ModelStore;
use valem::store::sqlite::{DATABASE, SqliteStore};

use crate::store::{self, Tamper};
use crate::support::in_process::call;
use crate::support::scratch::Scratch;

fn opener(dir: &Path) -> impl Fn() -> Arc<dyn ModelStore> + '_ {
    move || Arc::new(SqliteStore::open(dir, Duration::from_secs(5)).unwrap())
}

/// Runs one function of the shared suite on a store in a directory of its own.
fn on_a_fresh_store(name: &str, suite: fn(store::Open)) {
    let dir = Scratch::new(name);
    suite(&opener(dir.path()));
}

#[test]
fn a_restart_keeps_models_state_history_audit_and_blobs() {
    on_a_fresh_store("restart", store::a_restart_keeps_models_state_history_audit_and_blobs);
}

#[test]
fn concurrent_commits_on_one_model_serialize() {
    on_a_fresh_store("concurrent", store::concurrent_commits_on_one_model_serialize);
}

#[test]
fn a_failed_commit_changes_nothing() {
    on_a_fresh_store("failed", store::a_failed_commit_changes_nothing);
}

#[test]
fn tampering_with_the_stored_trail_is_found() {
    let dir = Scratch::new("tamper");
    let db = || Connection::open(dir.path().join(DATABASE)).unwrap();
    let edit = |model: &str, tamper: Tamper| {
        let db = db();
        let set = "UPDATE audit SET record = ?3 WHERE model_id = ?1 AND sequence = ?2";
        match tamper {
            Tamper::Set { sequence, record } => {
                assert_eq!(db.execute(set, params![model, sequence as i64, record]).unwrap(), 1);
            }
            Tamper::Swap(a, b) => {
                let read = |s: u64| -> String {
                    let q = "SELECT record FROM audit WHERE model_id = ?1 AND sequence = ?2";
                    db.query_row(q, params![model, s as i64], |r| r.get(0)).unwrap()
                };
                let (ra, rb) = (read(a), read(b));
                db.execute(set, params![model, a as i64, rb]).unwrap();
                db.execute(set, params![model, b as i64, ra]).unwrap();
            }
            Tamper::Delete(sequence) => {
                let delete = "DELETE FROM audit WHERE model_id = ?1 AND sequence = ?2";
                assert_eq!(db.execute(delete, params![model, sequence as i64]).unwrap(), 1);
            }
        }
    };
    let read = |model: &str, sequence: u64| -> String {
        let q = "SELECT record FROM audit WHERE model_id = ?1 AND sequence = ?2";
        db().query_row(q, params![model, sequence as i64], |r| r.get(0)).unwrap()
    };
    store::tampering_with_the_stored_trail_is_found(&opener(dir.path()), &edit, &read);
}

#[test]
fn a_directory_that_cannot_hold_the_store_is_a_clear_error() {
    let dir = Scratch::new("bad-dir");
    std::fs::create_dir_all(dir.path()).unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let error = SqliteStore::open(&file, Duration::from_secs(1)).err().unwrap();
    assert_eq!(error.to_string(), format!("--data {} is not a directory", file.display()));
    let under_file = file.join("sub");
    let error = SqliteStore::open(&under_file, Duration::from_secs(1)).err().unwrap();
    assert!(error.to_string().contains("cannot create the directory"), "{error}");

    let fresh = dir.path().join("new/deeper");
    let first = SqliteStore::open(&fresh, Duration::from_secs(1)).unwrap();
    assert_eq!(first.describe(), format!("SQLite at {}", fresh.join(DATABASE).display()));
    let second = SqliteStore::open(&fresh, Duration::from_secs(1)).err().unwrap();
    assert_eq!(second.to_string(), format!("--data {} is in use by another valem process", fresh.display()));
    drop(first);
    SqliteStore::open(&fresh, Duration::from_secs(1)).unwrap();
}

/// A trail longer than the pages it is read in: `verify_audit` counts across them and names a
/// broken record on a later page; `get_audit` reads the newest across them.
#[test]
fn a_long_trail_is_read_a_page_at_a_time() {
    const RECORDS: u64 = 2_500;
    let dir = Scratch::new("long-trail");
    let open = opener(dir.path());
    let server = valem::server_durable(valem::options::Limits::default(), open()).unwrap();
    call(&server, "create_model", json!({ "spec": { "id": "long", "schema": {} } })).unwrap();
    let mut db = Connection::open(dir.path().join(DATABASE)).unwrap();
    let tx = db.transaction().unwrap();
    let mut prev = GENESIS.to_owned();
    for sequence in 0..RECORDS {
        let Value::Object(content) = json!({ "source": "client", "mutations": { "$.n": sequence } }) else {
            unreachable!()
        };
        let sealed = seal(content, sequence, &prev);
        prev = sealed["hash"].as_str().unwrap().to_owned();
        let insert = "INSERT INTO audit (model_id, sequence, record) VALUES ('long', ?1, ?2)";
        tx.execute(insert, params![sequence as i64, Value::Object(sealed).to_string()]).unwrap();
    }
    tx.commit().unwrap();
    let verified = call(&server, "verify_audit", json!({ "id": "long" })).unwrap();
    assert_eq!(
        verified,
        json!({ "valid": true, "recordsChecked": RECORDS, "firstBrokenSequence": null, "detail": "ok" })
    );
    let newest = call(&server, "get_audit", json!({ "id": "long", "limit": 1_600 })).unwrap();
    let sequences: Vec<u64> = newest.as_array().unwrap().iter().map(|r| r["sequence"].as_u64().unwrap()).collect();
    assert_eq!(sequences, (RECORDS - 1_600..RECORDS).rev().collect::<Vec<_>>());

    let set = "UPDATE audit SET record = ?2 WHERE model_id = 'long' AND sequence = ?1";
    db.execute(set, params![2_200, "{not json"]).unwrap();
    let verified = call(&server, "verify_audit", json!({ "id": "long" })).unwrap();
    assert_eq!(verified["detail"], "unreadable audit line at position 2200", "a record's line index is its sequence");
    assert_eq!(verified["recordsChecked"], 2_201);
    db.execute("DELETE FROM audit WHERE model_id = 'long' AND sequence = 1500", []).unwrap();
    let verified = call(&server, "verify_audit", json!({ "id": "long" })).unwrap();
    assert_eq!(
        (verified["firstBrokenSequence"].clone(), verified["recordsChecked"].clone()),
        (json!(1_501), json!(1_501))
    );
}
