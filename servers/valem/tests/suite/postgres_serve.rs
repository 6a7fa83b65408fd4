//! Two real `valem serve --database URL` processes on one database: the changes of one model
//! made through both take turns, the audit trail stays one chain, a subscriber of one instance
//! hears the commits of the other, and both killed mid-way lose no acknowledged mutation (the
//! crash test shared with SQLite, `crash.rs`). No password shows at startup or in an error.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tooltable_golden::client::{Client as Raw, HttpClient};

use crate::support::postgres::{PASSWORD, Postgres};
use crate::support::rest::{Rest, Serve};

fn serve(url: &str) -> Serve {
    Serve::start(Path::new(env!("CARGO_BIN_EXE_valem")), &["--database", url])
}

fn counter_spec() -> Value {
    json!({ "id": "counter", "schema": { "type": "object", "properties": { "n": { "type": "integer" } } } })
}

/// Adds one to `$.n` as a compare-and-set (`test` then `replace` in one patch), trying again
/// while another writer got there first.
fn increment(rest: &mut Rest) {
    for _ in 0..1_000 {
        let (_, state) = rest.call("GET", "/models/counter/state", None).unwrap();
        let n = state["n"].as_u64().unwrap_or(0);
        let test = if state.get("n").is_some() { "test" } else { "add" };
        let patch = json!([
            { "op": test, "path": "/n", "value": n },
            { "op": "replace", "path": "/n", "value": n + 1 },
        ]);
        match rest.call("POST", "/models/counter/mutations/patch", Some(&patch)).unwrap() {
            (200, _) => return,
            (400 | 409 | 422, _) => continue,
            (status, body) => panic!("the increment failed: {status} {body}"),
        }
    }
    panic!("an increment lost 1,000 times in a row");
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// An MCP session with `addr` subscribed to `uri`.
async fn subscriber(addr: &str, uri: &str) -> Raw {
    let mut mcp = Raw::Http(HttpClient::new(&format!("http://{addr}/mcp")).unwrap());
    let wait = Duration::from_secs(30);
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": { "protocolVersion": "2025-11-25", "capabilities": {} } });
    mcp.send(&init).await.unwrap();
    mcp.until_response(&json!(1), wait).await.unwrap();
    mcp.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await.unwrap();
    mcp.send(&json!({ "jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": { "uri": uri } }))
        .await
        .unwrap();
    let (_, subscribed) = mcp.until_response(&json!(2), wait).await.unwrap();
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    mcp
}

/// Whether `mcp` hears that `uri` was updated within `wait`.
async fn hears_updated(mcp: &mut Raw, uri: &str, wait: Duration) -> bool {
    let until = Instant::now() + wait;
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        match mcp.recv(left).await {
            Some(m) if m["method"] == "notifications/resources/updated" && m["params"]["uri"] == uri => return true,
            Some(_) => continue,
            None => return false,
        }
    }
    false
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn two_instances_take_turns_on_one_model_and_tell_each_other_of_commits() {
    const EACH: usize = 25;
    let db = Postgres::start();
    let url = db.database("instances");
    let instances = [serve(&url), serve(&url)];
    let (status, created) = instances[0].client().call("POST", "/models", Some(&counter_spec())).unwrap();
    assert_eq!(status, 201, "{created}");

    std::thread::scope(|scope| {
        for instance in &instances {
            scope.spawn(move || {
                let mut rest = instance.client();
                for _ in 0..EACH {
                    increment(&mut rest);
                }
            });
        }
    });
    for instance in &instances {
        let (_, state) = instance.client().call("GET", "/models/counter/state", None).unwrap();
        assert_eq!(state["n"], 2 * EACH, "every increment of both instances applied once: {state}");
    }
    let mut rest = instances[1].client();
    let (_, verified) = rest.call("GET", "/models/counter/audit/verify", None).unwrap();
    assert_eq!(
        verified,
        json!({ "valid": true, "recordsChecked": 2 * EACH, "firstBrokenSequence": null, "detail": "ok" })
    );
    let (_, trail) = rest.call("GET", "/models/counter/audit?limit=1000", None).unwrap();
    let mut counts: Vec<u64> =
        trail.as_array().unwrap().iter().map(|r| r["mutations"]["$.n"].as_u64().unwrap()).collect();
    counts.reverse();
    assert_eq!(counts, (1..=2 * EACH as u64).collect::<Vec<_>>(), "one chain, in the order of the commits");

    // A subscriber of the first instance hears of a commit made through the second. The first
    // instance listens once it has connected, so the commit is made again until it is heard.
    let uri = "valem://state/counter";
    runtime().block_on(async {
        let mut mcp = subscriber(&instances[0].addr, uri).await;
        let heard = {
            let mut heard = false;
            for _ in 0..10 {
                let addr = instances[1].addr.clone();
                tokio::task::spawn_blocking(move || increment(&mut Rest::connect(&addr).unwrap())).await.unwrap();
                if hears_updated(&mut mcp, uri, Duration::from_secs(2)).await {
                    heard = true;
                    break;
                }
            }
            heard
        };
        assert!(heard, "the subscriber of instance 1 heard nothing of the commits made on instance 2");
    });
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn every_acknowledged_mutation_through_two_instances_survives_killing_both() {
    let db = Postgres::start();
    let url = db.database("crash");
    crate::crash::every_acknowledged_mutation_survives_killing(&|| vec![serve(&url), serve(&url)]);
}

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn the_startup_line_names_the_database_without_the_password() {
    let db = Postgres::start();
    let url = db.database("startup");
    let line = super::crash::startup_line(&["--database", &url]);
    assert!(line.ends_with(&format!("; models kept in PostgreSQL at 127.0.0.1:{}/startup", db.port())), "{line}");
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_valem"))
        .args(["serve", "--help"])
        .env("VALEM_DATABASE_URL", &url)
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(help.contains("[env: VALEM_DATABASE_URL]") && !help.contains(PASSWORD), "{help}");
}

#[test]
fn a_database_that_cannot_be_reached_stops_the_server_with_a_clear_error_and_no_password() {
    let url = format!("postgres://valem:{PASSWORD}@127.0.0.1:1/nowhere");
    for args in [vec!["serve", "--database", url.as_str()], vec!["serve"]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_valem"))
            .args(&args)
            .env("VALEM_DATABASE_URL", &url)
            .args(["--listen", "127.0.0.1:0", "--database-timeout-ms", "2000"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {stderr}");
        assert_eq!(
            stderr.trim(),
            "error: PostgreSQL: cannot connect: error connecting to server: Connection refused (os error 111) \
             (--database 127.0.0.1:1/nowhere)"
        );
    }
    let both = std::process::Command::new(env!("CARGO_BIN_EXE_valem"))
        .args(["serve", "--data", "/nonexistent", "--database", &url])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&both.stderr);
    assert!(stderr.contains("'--data <DIR>' cannot be used with '--database <URL>'"), "{stderr}");
    assert!(!stderr.contains(PASSWORD), "{stderr}");
}
