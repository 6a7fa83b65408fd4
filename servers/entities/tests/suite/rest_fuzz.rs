//! REST argument binding under arbitrary paths and query strings: the routes of the served
//! example repository with random segments (percent-encoded odd text, traversals, known names)
//! and random query pairs. No request is answered with a 5xx or left without an answer, and the
//! server still answers a known route afterwards.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::fuzz;

const BIN: &str = env!("CARGO_BIN_EXE_entities");
const SEED: u64 = 0x005e_ed0f_4e58;
const CASES: usize = 400;
const ANSWER_LIMIT: Duration = Duration::from_secs(5);

/// Targets kept because they are the edges of binding.
const REGRESSIONS: &[&str] = &[
    "/entities/%2e%2e/objects",
    "/entities/User/objects/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/entities/User/objects/",
    "/entities//objects",
    "/entities/%00",
    "/entities/%ff%fe",
    "/export?entities=",
    "/export?entities=User&entities=User",
    "/export?entities[]=User",
    "/files?entity=%00",
    "/files?entity=User&entity=Post",
];

/// The status of `GET target`; `None` when the connection closed without one.
async fn status(addr: &str, target: &str) -> Option<u16> {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connected");
    // HTTP/1.0: the connection closes after the response.
    let request = format!("GET {target} HTTP/1.0\r\nHost: {addr}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("sent");
    let mut response = Vec::new();
    tokio::time::timeout(ANSWER_LIMIT, stream.read_to_end(&mut response))
        .await
        .unwrap_or_else(|_| panic!("no answer within {ANSWER_LIMIT:?} to {target}"))
        .expect("read");
    let head = String::from_utf8_lossy(&response);
    head.strip_prefix("HTTP/1.")
        .and_then(|rest| rest.get(2..5))
        .map(|code| code.parse().unwrap_or_else(|_| panic!("no status in {head:?}")))
}

fn segment(rng: &mut fuzz::Rng) -> String {
    match rng.u8(..4) {
        0 => fuzz::pick(rng, &["User", "Post", "Comment", "user-alice", "Nope"]).to_owned(),
        1 => fuzz::pick(rng, &["..", ".", "", "%2e%2e", "%2F", "a%2Fb", "*", "~"]).to_owned(),
        _ => fuzz::percent(fuzz::pick(rng, fuzz::ODD_STRINGS)),
    }
}

fn target(rng: &mut fuzz::Rng) -> String {
    let path = match rng.u8(..6) {
        0 => "/entities".to_owned(),
        1 => format!("/entities/{}", segment(rng)),
        2 => format!("/entities/{}/objects", segment(rng)),
        3 => format!("/entities/{}/objects/{}", segment(rng), segment(rng)),
        4 => fuzz::pick(rng, &["/export", "/files"]).to_owned(),
        _ => format!("/{}", segment(rng)),
    };
    let query: Vec<String> = (0..rng.usize(..4))
        .map(|_| format!("{}={}", fuzz::pick(rng, &["entities", "entity", "id", "x", ""]), segment(rng)))
        .collect();
    format!("{path}?{}", query.join("&"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arbitrary_paths_and_queries_never_get_a_5xx() {
    let root: std::path::PathBuf = [env!("CARGO_MANIFEST_DIR"), "examples", "full"].iter().collect();
    let args = ["--root".to_owned(), root.display().to_string()];
    let (_server, client) = tooltable_golden::process::http(BIN, &args).await.unwrap();
    let origin = client.origin();
    let addr = origin.trim_start_matches("http://");
    for target in REGRESSIONS {
        let got = status(addr, target).await;
        assert!(got.is_some_and(|code| code < 500), "{got:?} for {target}");
    }
    let started = Instant::now();
    let (mut rng, seed, cases) = fuzz::run(SEED, CASES);
    for case in 0..cases {
        let target = target(&mut rng);
        let got = status(addr, &target).await;
        assert!(got.is_some_and(|code| code < 500), "case {case} (seed {seed:#x}): {got:?} for {target}");
        assert!(started.elapsed() < Duration::from_secs(60), "the run took over a minute");
    }
    assert_eq!(status(addr, "/entities/User/objects/user-alice").await, Some(200));
}
