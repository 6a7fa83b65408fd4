//! The PostgreSQL store (`serve --database URL`): the shared store suite run on it, each
//! function on a database of its own, and tampering done with SQL on the audit rows.

use std::sync::Arc;

use valem::store::ModelStore;
use valem::store::postgres::{PostgresOptions, PostgresStore};

use crate::store::{self, Tamper};
use crate::support::postgres::Postgres;

fn opener(url: &str) -> impl Fn() -> Arc<dyn ModelStore> + '_ {
    move || Arc::new(PostgresStore::open(url, PostgresOptions::DEFAULT).unwrap())
}

/// Runs one function of the shared suite on a fresh database.
fn on_a_fresh_database(suite: fn(store::Open)) {
    let server = Postgres::start();
    suite(&opener(&server.database("suite")));
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn a_restart_keeps_models_state_history_audit_and_blobs() {
    on_a_fresh_database(store::a_restart_keeps_models_state_history_audit_and_blobs);
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn concurrent_commits_on_one_model_serialize() {
    on_a_fresh_database(store::concurrent_commits_on_one_model_serialize);
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn a_failed_commit_changes_nothing() {
    on_a_fresh_database(store::a_failed_commit_changes_nothing);
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn tampering_with_the_stored_trail_is_found() {
    let server = Postgres::start();
    let url = server.database("tamper");
    const SET: &str = "UPDATE audit SET record = $3 WHERE model_id = $1 AND sequence = $2";
    let read = |model: &str, sequence: u64| -> String {
        let q = "SELECT record FROM audit WHERE model_id = $1 AND sequence = $2";
        server.connect("tamper").query_one(q, &[&model, &(sequence as i64)]).unwrap().get(0)
    };
    let edit = |model: &str, tamper: Tamper| {
        let mut db = server.connect("tamper");
        let mut set = |sequence: u64, record: &str| {
            assert_eq!(db.execute(SET, &[&model, &(sequence as i64), &record]).unwrap(), 1);
        };
        match tamper {
            Tamper::Set { sequence, record } => set(sequence, &record),
            Tamper::Swap(a, b) => {
                let (ra, rb) = (read(model, a), read(model, b));
                set(a, &rb);
                set(b, &ra);
            }
            Tamper::Delete(sequence) => {
                let delete = "DELETE FROM audit WHERE model_id = $1 AND sequence = $2";
                assert_eq!(server.connect("tamper").execute(delete, &[&model, &(sequence as i64)]).unwrap(), 1);
            }
        }
    };
    store::tampering_with_the_stored_trail_is_found(&opener(&url), &edit, &read);
}
