//! The PostgreSQL store on a real server: two stores on one database stand for two instances.
//! Their changes of one model take turns and keep one audit chain, each hears the other's
//! commits and not its own, the pool is bounded, and no password shows anywhere.

use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use serde_json::{Map, Value, json};
use valem::audit::{GENESIS, verify};
use valem::store::postgres::{MAX_ID_BYTES, PostgresOptions, PostgresStore};
use valem::store::{ModelStore, StoreError, StoredModel};

use crate::support::postgres::{PASSWORD, Postgres};

fn open(url: &str) -> PostgresStore {
    PostgresStore::open(url, PostgresOptions::DEFAULT).unwrap_or_else(|e| panic!("the store opens: {e}"))
}

fn counter(n: u64) -> StoredModel {
    StoredModel { spec: json!({ "id": "counter" }), state: json!({ "n": n }) }
}

fn record(n: u64) -> Map<String, Value> {
    Map::from_iter([("mutations".to_owned(), json!({ "$.n": n }))])
}

/// One increment of the counter `id`, with its audit record.
fn increment(store: &dyn ModelStore, id: &str) {
    let change = store.begin(id).unwrap();
    let n = change.load().unwrap().state["n"].as_u64().unwrap() + 1;
    change.commit(&counter(n), Some(record(n))).unwrap();
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn two_instances_take_turns_on_one_model_and_keep_one_chain() {
    const EACH: u64 = 50;
    let server = Postgres::start();
    let url = server.database("turns");
    let stores: Vec<Arc<PostgresStore>> = (0..2).map(|_| Arc::new(open(&url))).collect();
    stores[0].create("counter", &counter(0)).unwrap();
    let barrier = Arc::new(Barrier::new(4));
    let workers: Vec<_> = (0..4)
        .map(|n| {
            let (store, barrier) = (Arc::clone(&stores[n % 2]), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                for _ in 0..EACH / 2 {
                    increment(store.as_ref(), "counter");
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    let (model, revision) = stores[1].load("counter").unwrap().unwrap();
    assert_eq!(model.state["n"], json!(2 * EACH), "every increment applied once");
    assert_eq!(revision, 2 * EACH + 1);
    assert_eq!(stores[0].next_sequence("counter").unwrap(), 2 * EACH);
    let trail = stores[0].records("counter", 0..u64::MAX).unwrap();
    assert_eq!(trail.len() as u64, 2 * EACH);
    let sequences: Vec<u64> = trail.iter().map(|r| r["sequence"].as_u64().unwrap()).collect();
    assert_eq!(sequences, (0..2 * EACH).collect::<Vec<_>>());
    let counts: Vec<u64> = trail.iter().map(|r| r["mutations"]["$.n"].as_u64().unwrap()).collect();
    assert_eq!(counts, (1..=2 * EACH).collect::<Vec<_>>(), "the chain follows the commits in order");
    let verified = verify(&trail, GENESIS);
    assert!(verified.valid, "{verified:?}");
    assert_eq!(stores[1].records("counter", 10..12).unwrap(), trail[10..12], "a page of the trail");
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn a_commit_is_heard_by_the_other_instance_and_not_by_its_own() {
    let server = Postgres::start();
    let url = server.database("heard");
    let (one, two) = (open(&url), open(&url));
    let hear = |store: &PostgresStore| {
        let (tx, rx) = mpsc::channel::<String>();
        let tx = std::sync::Mutex::new(tx);
        store.watch(Arc::new(move |id: &str| {
            let _ = tx.lock().unwrap().send(id.to_owned());
        }));
        rx
    };
    let (heard_by_one, heard_by_two) = (hear(&one), hear(&two));
    // The LISTEN threads connect on their own; a commit before they listen is not heard.
    std::thread::sleep(Duration::from_millis(1_000));
    two.create("m", &counter(0)).unwrap();
    increment(&two, "m");
    assert_eq!(heard_by_one.recv_timeout(Duration::from_secs(10)).unwrap(), "m");
    increment(&one, "m");
    assert_eq!(heard_by_two.recv_timeout(Duration::from_secs(10)).unwrap(), "m");
    assert!(two.delete("m").unwrap());
    assert_eq!(heard_by_one.recv_timeout(Duration::from_secs(10)).unwrap(), "m", "a deletion is heard too");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(heard_by_one.try_recv().ok(), None, "one's own commit was heard: {:?}", heard_by_one.try_recv());
    assert_eq!(heard_by_two.try_recv().ok(), None, "two's own commits were heard");
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn a_dropped_change_leaves_nothing_and_lets_the_model_go() {
    let server = Postgres::start();
    let store = open(&server.database("dropped"));
    store.create("m", &counter(0)).unwrap();
    let change = store.begin("m").unwrap();
    assert_eq!(change.revision(), 1);
    drop(change);
    increment(&store, "m");
    let (model, revision) = store.load("m").unwrap().unwrap();
    assert_eq!((model.state["n"].as_u64(), revision), (Some(1), 2));
    assert_eq!(store.records("m", 0..u64::MAX).unwrap().len(), 1);
    assert_eq!(store.next_sequence("absent").unwrap(), 0);
    assert!(matches!(store.begin("absent").err(), Some(StoreError::NotFound(_))));
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn a_pool_of_one_connection_makes_the_next_caller_wait_then_refuses_clearly() {
    let server = Postgres::start();
    let url = server.database("pool");
    let store = PostgresStore::open(&url, PostgresOptions { pool: 1, timeout: Duration::from_millis(300) }).unwrap();
    store.create("m", &counter(0)).unwrap();
    let change = store.begin("m").unwrap();
    let refused = store.count().unwrap_err().to_string();
    assert!(refused.contains("all 1 connections stayed busy for 300 ms (--database-pool"), "{refused}");
    drop(change);
    assert_eq!(store.count().unwrap(), 1, "the connection is free again");
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn a_model_held_by_another_instance_is_waited_for_within_the_timeout() {
    let server = Postgres::start();
    let url = server.database("held");
    let short = PostgresOptions { pool: 2, timeout: Duration::from_millis(300) };
    let (one, two) = (open(&url), PostgresStore::open(&url, short).unwrap());
    one.create("m", &counter(0)).unwrap();
    let held = one.begin("m").unwrap();
    let refused = two.begin("m").err().expect("the model is held").to_string();
    assert_eq!(refused, "the model \"m\" stayed held by another change for 300 ms (--database-timeout-ms)");
    drop(held);
    increment(&two, "m");
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn an_overlong_id_is_refused_before_the_database_sees_it() {
    let server = Postgres::start();
    let store = open(&server.database("ids"));
    let refused = store.create(&"x".repeat(MAX_ID_BYTES + 1), &counter(0)).unwrap_err().to_string();
    assert!(refused.contains(&format!("at most {MAX_ID_BYTES} bytes")), "{refused}");
    store.create(&"x".repeat(MAX_ID_BYTES), &counter(0)).unwrap();
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn the_password_shows_neither_in_the_description_nor_in_any_error() {
    let server = Postgres::start();
    let url = server.database("secret");
    let store = open(&url);
    assert_eq!(store.describe(), format!("PostgreSQL at 127.0.0.1:{}/secret", server.port()));
    let wrong_password = url.replace(PASSWORD, "Wrong-Zq8sSecret");
    let unreachable = format!("postgres://valem:{PASSWORD}@127.0.0.1:1/secret");
    let bad_port = format!("postgres://valem:{PASSWORD}@127.0.0.1:notaport/secret");
    let quick = PostgresOptions { pool: 1, timeout: Duration::from_secs(5) };
    for (url, says) in [
        (wrong_password.as_str(), "password authentication failed"),
        (unreachable.as_str(), "cannot connect"),
        (bad_port.as_str(), "is not a PostgreSQL URL"),
    ] {
        let error = PostgresStore::open(url, quick).err().expect("the store does not open").to_string();
        assert!(error.contains(says), "{error}");
        assert!(!error.contains("Zq8sSecret"), "the password shows: {error}");
    }
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn a_change_left_open_lets_its_model_go_after_twice_the_timeout() {
    let server = Postgres::start();
    let url = server.database("left-open");
    let short = PostgresOptions { pool: 2, timeout: Duration::from_millis(200) };
    let (silent, other) = (PostgresStore::open(&url, short).unwrap(), open(&url));
    silent.create("m", &counter(0)).unwrap();
    let held = silent.begin("m").unwrap();
    std::thread::sleep(Duration::from_millis(1_000));
    increment(&other, "m");
    let refused = held.commit(&counter(7), Some(record(7))).unwrap_err().to_string();
    assert!(refused.starts_with("PostgreSQL: store a model:"), "{refused}");
    let (model, revision) = other.load("m").unwrap().unwrap();
    assert_eq!((model.state["n"].as_u64(), revision), (Some(1), 2), "the stale change wrote nothing");
    increment(&silent, "m");
    assert_eq!(silent.next_sequence("m").unwrap(), 2, "the store goes on after the closed connection");
}
