//! What durability costs: mutations per second over REST from four clients of the real
//! `valem serve`, in memory, with `--data DIR` (SQLite, each commit on disk before its answer)
//! and with `--database URL` (a PostgreSQL server in a temporary directory, flushing each commit
//! to disk, served by one and by two instances), and `verify_audit` of a stored trail of 100,000
//! records. Printed, nothing asserted.

#[allow(dead_code)]
#[path = "../tests/support/postgres.rs"]
mod pg_server;
// The REST client and what starts `valem serve` for it; the bench uses a part of these test
// supports (no kill, no captured output), hence the allowances.
#[allow(dead_code)]
#[path = "../tests/support/rest.rs"]
mod rest;
#[path = "../tests/support/scratch.rs"]
mod scratch;
#[allow(dead_code)]
#[path = "../tests/support/served.rs"]
mod served;
#[path = "support/timing.rs"]
mod timing;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::{Connection, params};
use serde_json::{Map, Value, json};
use valem::audit::{GENESIS, seal};
use valem::store::sqlite::{DATABASE, SqliteStore};

use rest::Serve;
use scratch::Scratch;

const CLIENTS: usize = 4;
const MUTATIONS: usize = 2_000;
const RECORDS: u64 = 100_000;

fn main() {
    let bin = Path::new(env!("CARGO_BIN_EXE_valem"));
    let memory = mutations_per_second(&[Serve::start(bin, &[])], Models::Own);
    println!("REST mutate, {CLIENTS} clients, one model each, in memory: {memory:.0} mutations/s");
    let dir = Scratch::new("bench-durable");
    let sqlite =
        mutations_per_second(&[Serve::start(bin, &["--data", dir.path().to_str().unwrap_or_default()])], Models::Own);
    println!("REST mutate, {CLIENTS} clients, one model each, SQLite (--data): {sqlite:.0} mutations/s");
    verify_stored_trail();
    postgres(bin);
}

/// The figures on PostgreSQL: one instance, two instances (the clients shared out between
/// them), and two instances whose clients all write one model.
fn postgres(bin: &Path) {
    let db = pg_server::Postgres::start_with(&[]);
    let runs = [(1, Models::Own, "one model each"), (2, Models::Own, "one model each"), (2, Models::One, "one model")];
    for (n, (instances, models, what)) in runs.into_iter().enumerate() {
        let url = db.database(&format!("bench{n}"));
        let servers: Vec<Serve> = (0..instances).map(|_| Serve::start(bin, &["--database", &url])).collect();
        let rate = mutations_per_second(&servers, models);
        let instances = if instances == 1 { "1 instance".to_owned() } else { format!("{instances} instances") };
        println!("REST mutate, {CLIENTS} clients, {what}, PostgreSQL, {instances}: {rate:.0} mutations/s");
    }
}

#[derive(Clone, Copy)]
enum Models {
    /// Each client writes a model of its own.
    Own,
    /// Every client writes the same model.
    One,
}

/// Each client (on the instance `c % servers.len()`) mutates its model `MUTATIONS / CLIENTS`
/// times, the model created first.
fn mutations_per_second(servers: &[Serve], models: Models) -> f64 {
    let id = |c: usize| match models {
        Models::Own => format!("m{c}"),
        Models::One => "m0".to_owned(),
    };
    for c in 0..CLIENTS {
        let spec = json!({ "id": id(c), "schema": {}, "derivations": [{ "path": "$.double", "expr": "n * 2" }] });
        let _ = servers[0].client().call("POST", "/models", Some(&spec));
    }
    let start = Instant::now();
    std::thread::scope(|scope| {
        for c in 0..CLIENTS {
            let (server, path) = (&servers[c % servers.len()], format!("/models/{}/mutations", id(c)));
            scope.spawn(move || {
                let mut rest = server.client();
                for n in 0..MUTATIONS / CLIENTS {
                    let _ = rest.call("POST", &path, Some(&json!({ "$.n": n })));
                }
            });
        }
    });
    MUTATIONS as f64 / start.elapsed().as_secs_f64()
}

/// A model whose stored trail holds `RECORDS` sealed records (written with SQL in one
/// transaction, as a long-lived server would have left them), then `verify_audit` of it.
fn verify_stored_trail() {
    let dir = Scratch::new("bench-trail");
    let store = SqliteStore::open(dir.path(), Duration::from_secs(5)).expect("the store opens");
    let server = valem::server_durable(valem::options::Limits::default(), Arc::new(store)).expect("the server builds");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let call = |tool: &str, args| runtime.block_on(server.call(tool, args));
    let spec = json!({ "id": "long", "schema": {}, "derivations": [{ "path": "$.double", "expr": "n * 2" }] });
    let _ = call("create_model", json!({ "spec": spec }));
    let written = Instant::now();
    if let Err(e) = write_trail(&dir.path().join(DATABASE)) {
        println!("the trail could not be written: {e}");
        return;
    }
    println!("{RECORDS} audit records written in one transaction: {:.2} s", written.elapsed().as_secs_f64());
    let mut outcome = Value::Null;
    let verify = timing::mean_of(1, || {
        outcome = call("verify_audit", json!({ "id": "long" })).unwrap_or_else(|e| e.body);
    });
    println!("verify_audit of {RECORDS} stored records: {} ({outcome})", timing::show(verify));
}

fn write_trail(db: &Path) -> rusqlite::Result<()> {
    let mut conn = Connection::open(db)?;
    let tx = conn.transaction()?;
    let mut prev = GENESIS.to_owned();
    for sequence in 1..=RECORDS {
        let Value::Object(content) = json!({
            "modelId": "long",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "modelVersion": "1.0.0",
            "source": "client",
            "mutations": { "$.n": sequence },
            "derivedUpdated": ["$.double"],
            "flaggedConstraints": [],
            "dispatchedEffects": [],
            "traces": [{ "targetPath": "$.double", "expression": "n * 2", "inputPaths": ["$.n"], "result": sequence * 2 }],
        }) else {
            unreachable!("a json! object is an object")
        };
        let sealed: Map<String, Value> = seal(content, sequence, &prev);
        prev = sealed["hash"].as_str().unwrap_or_default().to_owned();
        tx.execute(
            "INSERT INTO audit (model_id, sequence, record) VALUES ('long', ?1, ?2)",
            params![sequence as i64, Value::Object(sealed).to_string()],
        )?;
    }
    tx.commit()
}
