//! The real `valem serve --data DIR` killed (SIGKILL) while four REST clients mutate, each its
//! own model (their commits share transactions: see `store/batch.rs`): once restarted on the
//! same directory, every acknowledged mutation is there, none is half applied, and every audit
//! trail verifies. Writers on one model are the store suite's concern
//! (`concurrent_commits_on_one_model_serialize`).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::rest::{Rest, Serve};
use crate::support::scratch::Scratch;
use crate::support::served::Served;

const CLIENTS: usize = 4;
/// The mutations issued in all, at most: the process is killed about half way.
const MUTATIONS: usize = 10_000;
const KILL_AFTER: usize = MUTATIONS / 2;
/// However slow the machine, the kill comes by then (a debug build on two cores commits some
/// 150 mutations a second, so the kill comes about half way there too).
const KILL_BY: Duration = Duration::from_secs(40);

fn serve(dir: &Path) -> Serve {
    Serve::start(Path::new(env!("CARGO_BIN_EXE_valem")), &["--data", dir.to_str().unwrap()])
}

#[test]
fn every_acknowledged_mutation_survives_a_kill() {
    let dir = Scratch::new("crash");
    every_acknowledged_mutation_survives_killing(&|| vec![serve(dir.path())]);
}

/// The clients spread over the instances `start` gives (client `c` on instance `c % n`), all
/// killed about half way; then `start` again on the same store. `--database URL` runs it with
/// two instances (`postgres_serve.rs`).
pub fn every_acknowledged_mutation_survives_killing(start: &dyn Fn() -> Vec<Serve>) {
    let mut instances = start();
    let addrs: Vec<String> = instances.iter().map(|i| i.addr.clone()).collect();
    let mut rest = instances[0].client();
    for c in 0..CLIENTS {
        let spec = json!({ "id": format!("crash{c}"), "schema": {}, "derivations": [{ "path": "$.double", "expr": format!("c{c} * 2") }] });
        assert_eq!(rest.call("POST", "/models", Some(&spec)).unwrap().0, 201);
    }

    // Client `c` writes 1, 2, 3, ... to `$.c{c}` of `crash{c}`, one at a time: what it saw
    // acknowledged is the highest value it was answered 200 for.
    let acknowledged = [const { AtomicUsize::new(0) }; CLIENTS];
    let answered = AtomicUsize::new(0);
    let began = Instant::now();
    std::thread::scope(|scope| {
        for (c, acked) in acknowledged.iter().enumerate() {
            let (addr, answered) = (&addrs[c % addrs.len()], &answered);
            scope.spawn(move || {
                let mut rest = Rest::connect(addr).unwrap();
                for i in 1..=MUTATIONS / CLIENTS {
                    let body = json!({ format!("$.c{c}"): i });
                    match rest.call("POST", &format!("/models/crash{c}/mutations"), Some(&body)) {
                        Ok((200, _)) => acked.store(i, Ordering::SeqCst),
                        Ok((status, body)) => panic!("mutation {i} of client {c}: {status} {body}"),
                        Err(_) => return,
                    }
                    answered.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
        while answered.load(Ordering::SeqCst) < KILL_AFTER && began.elapsed() < KILL_BY {
            std::thread::sleep(Duration::from_millis(5));
        }
        instances.iter_mut().for_each(Serve::kill);
    });
    let acked: Vec<usize> = acknowledged.iter().map(|a| a.load(Ordering::SeqCst)).collect();
    eprintln!("killed after {:?}, acknowledged {acked:?}", began.elapsed());
    assert!(acked.iter().sum::<usize>() >= KILL_AFTER.min(100), "too few mutations ran: {acked:?}");

    let instances = start();
    let mut rest = instances[0].client();
    for (c, acked) in acked.iter().enumerate() {
        let model = format!("/models/crash{c}");
        let (status, state) = rest.call("GET", &format!("{model}/state"), None).unwrap();
        assert_eq!(status, 200, "{state}");
        let applied = state[format!("c{c}")].as_u64().unwrap_or(0) as usize;
        // The one mutation in flight at the kill may or may not have been committed.
        assert!((*acked..=acked + 1).contains(&applied), "client {c}: acknowledged {acked}, stored {applied}");
        assert_eq!(state["double"], applied * 2, "the derived value follows its input: {state}");

        let (_, verified) = rest.call("GET", &format!("{model}/audit/verify"), None).unwrap();
        assert_eq!(verified["valid"], true, "{verified}");
        assert_eq!(verified["recordsChecked"], applied, "one record per applied mutation: {verified}");
        let (_, newest) = rest.call("GET", &format!("{model}/audit?limit=1"), None).unwrap();
        assert_eq!(newest[0]["sequence"], applied - 1, "the first record is sequence 0");
        assert_eq!(newest[0]["mutations"], json!({ format!("$.c{c}"): applied }));
        let (_, history) = rest.call("GET", &format!("{model}/history"), None).unwrap();
        let kept = history.as_array().map_or(0, Vec::len);
        assert!(kept > 0 && kept <= 50, "the newest commits' timestamps are kept: {history}");

        let (status, _) =
            rest.call("POST", &format!("{model}/mutations"), Some(&json!({ format!("$.c{c}"): 0 }))).unwrap();
        assert_eq!(status, 200, "the restarted server goes on committing");
    }
    // A stored id is not handed out again, over REST the original's 409.
    let spec = json!({ "id": "crash0", "schema": {} });
    let (status, body) = rest.call("POST", "/models", Some(&spec)).unwrap();
    assert_eq!((status, &body["error"]), (409, &json!("Duplicate id")), "{body}");
}

#[test]
fn the_startup_line_says_where_the_models_are_kept() {
    let dir = Scratch::new("startup-line");
    let data = dir.path().to_str().unwrap();
    assert_eq!(
        startup_line(&["--data", data]).split_once("; ").map(|(_, note)| note.to_owned()),
        Some(format!("models kept in SQLite at {}", dir.path().join("valem.db").display()))
    );
    let in_memory = startup_line(&[]);
    assert!(
        in_memory.ends_with("; models kept in memory: a restart loses them (--data DIR or --database URL keeps them)"),
        "{in_memory}"
    );
}

/// The line `valem serve ARGS..` prints once it listens.
pub fn startup_line(args: &[&str]) -> String {
    let served = Served::start(Path::new(env!("CARGO_BIN_EXE_valem")), args);
    let printed = served.printed();
    let line = printed.lines().find(|l| l.starts_with("listening on ")).unwrap_or_default();
    // Hosts take the word after `listening on` as the endpoint; the note must not change it.
    assert!(line.starts_with(&format!("listening on {}/mcp ", served.url)), "{line}");
    line.to_owned()
}
