//! A load test, run apart (`cargo nextest run -p tooltable-transports --run-ignored ignored-only`):
//! a normal client is still answered while 1,000 hostile connections are open. It prints the
//! normal client's latencies; it asserts only that every request was answered.

use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tooltable_transports::http::HttpOptions;

use crate::support::{send, start};

const HOSTILE_PER_KIND: usize = 250;
const NORMAL_REQUESTS: usize = 50;

/// Lets this process hold both ends of every connection.
fn raise_descriptor_limit() {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit on one rlimit we own.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

async fn hostile(addr: std::net::SocketAddr, kind: usize) -> Option<TcpStream> {
    let mut s = TcpStream::connect(addr).await.ok()?;
    let host = addr.to_string();
    let opening = match kind {
        0 => String::new(),
        1 => "GET /openapi.json HTTP/1.1\r\nx-slow: ".to_owned(),
        2 => format!(
            "POST /mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{{"
        ),
        _ => format!(
            "POST /mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n1\r\n \r\n"
        ),
    };
    s.write_all(opening.as_bytes()).await.ok()?;
    Some(s)
}

async fn latencies(addr: std::net::SocketAddr) -> Vec<Duration> {
    let mut times = Vec::with_capacity(NORMAL_REQUESTS);
    for _ in 0..NORMAL_REQUESTS {
        let started = Instant::now();
        let r = send(addr, "GET", "/models/7/state?depth=2", &[], "").await;
        times.push(started.elapsed());
        assert_eq!(r.status, 200, "the normal client is answered: {:?}", r.body);
    }
    times.sort();
    times
}

fn summary(times: &[Duration]) -> String {
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    format!("p50 {:?}, p99 {:?}, max {:?}", at(0.5), at(0.99), times[times.len() - 1])
}

/// The normal client's latencies alone, then beside 1,000 hostile connections, printed.
async fn besieged(options: HttpOptions, what: &str) {
    raise_descriptor_limit();
    let s = start(options).await;
    let quiet = latencies(s.addr).await;
    let mut held = Vec::new();
    for i in 0..4 * HOSTILE_PER_KIND {
        held.extend(hostile(s.addr, i % 4).await);
    }
    assert_eq!(held.len(), 4 * HOSTILE_PER_KIND, "every hostile connection opened");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let besieged = latencies(s.addr).await;
    println!("{what}: normal client, {NORMAL_REQUESTS} requests alone: {}", summary(&quiet));
    println!("{what}: beside {} hostile connections: {}", held.len(), summary(&besieged));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a load test: run with --run-ignored ignored-only"]
async fn a_normal_client_is_answered_while_1000_hostile_connections_are_open() {
    besieged(HttpOptions::default(), "default cap").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a load test: run with --run-ignored ignored-only"]
async fn a_normal_client_gets_in_past_a_cap_full_of_hostile_connections() {
    besieged(HttpOptions { max_connections: 200, ..HttpOptions::default() }, "cap of 200").await;
}
