//! The HTTP request path: raw requests over TCP with random methods, paths, headers (the MCP
//! ones among them, Content-Length lies and chunked garbage) and bodies. Every request gets a
//! well-formed response with a status below 500, or, when it is malformed, a closed connection;
//! the server stays up and still answers a normal request afterwards.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::fuzz;
use crate::process::Served;

const SEED: u64 = 0x005e_ed0f_4770;
const CASES: usize = 1000;
/// How long one request may wait for the head of its response.
const ANSWER_LIMIT: Duration = Duration::from_secs(5);
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// Requests kept because they are the edges of the request path, each with `{addr}` and
/// `{session}` to fill in and whether it is malformed.
const REGRESSIONS: &[(&str, bool)] = &[
    (
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nLast-Event-ID: 99999999999999999999999\r\nConnection: close\r\n\r\n",
        false,
    ),
    (
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nLast-Event-ID: -1\r\nConnection: close\r\n\r\n",
        false,
    ),
    (
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\nMcp-Session-Id: other\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
        false,
    ),
    (
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 3\r\nConnection: close\r\n\r\n\u{feff}{}",
        false,
    ),
    (
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 6\r\nConnection: close\r\n\r\n{}   ",
        true,
    ),
    (
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        true,
    ),
    ("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 18446744073709551616\r\nConnection: close\r\n\r\n", true),
    ("DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nMcp-Session-Id: \r\nConnection: close\r\n\r\n", false),
    ("GET /mcp HTTP/1.1\r\nHost: evil.example\r\nOrigin: https://evil.example\r\nConnection: close\r\n\r\n", false),
];

/// What came back for one request.
#[derive(Debug)]
pub enum Reply {
    /// The status and the whole head.
    Status(u16, String),
    /// The server closed the connection without a response.
    Closed,
}

/// Sends `request` on a new connection and reads the head of the response. `half_close` ends
/// the sending side after the request, for a body shorter than its Content-Length says.
pub fn send(addr: &str, request: &[u8], half_close: bool) -> Result<Reply, String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    stream.set_read_timeout(Some(ANSWER_LIMIT)).expect("a timeout");
    // The server may refuse the request before reading all of it; the reply still counts.
    let _ = stream.write_all(request);
    if half_close {
        let _ = stream.shutdown(Shutdown::Write);
    }
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    let started = Instant::now();
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            // A signal to the test process (a child of another test exiting) is no answer.
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("no response head within {:?} ({e})", started.elapsed())),
        }
    }
    if head.is_empty() {
        return Ok(Reply::Closed);
    }
    let text = String::from_utf8_lossy(&head);
    let status = text
        .strip_prefix("HTTP/1.1 ")
        .filter(|_| text.contains("\r\n\r\n"))
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("not an HTTP response head: {text:?}"))?;
    Ok(Reply::Status(status, text.into_owned()))
}

/// A request of the shape a client sends, its parts drawn at random.
struct Draft {
    method: String,
    target: String,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
    /// Content-Length as sent; `None` leaves it to the body's length.
    length: Option<String>,
    chunked: bool,
    /// Made to be malformed: the server may close the connection instead of answering.
    malformed: bool,
}

impl Draft {
    fn bytes(&self) -> Vec<u8> {
        let mut out = format!("{} {} HTTP/1.1\r\n", self.method, self.target).into_bytes();
        for (name, value) in &self.headers {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value);
            out.extend_from_slice(b"\r\n");
        }
        if self.chunked {
            out.extend_from_slice(b"Transfer-Encoding: chunked\r\n");
        } else {
            let length = self.length.clone().unwrap_or_else(|| self.body.len().to_string());
            out.extend_from_slice(format!("Content-Length: {length}\r\n").as_bytes());
        }
        out.extend_from_slice(b"Connection: close\r\n\r\n");
        out.extend_from_slice(&self.body);
        out
    }
}

fn mcp_body(rng: &mut fuzz::Rng) -> Vec<u8> {
    let valid = fuzz::pick(
        rng,
        &[
            json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } } }),
            json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": { "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } }),
            json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "add_numbers", "arguments": { "a": 1, "b": 2 } } }),
            json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
            json!({ "jsonrpc": "2.0", "id": 4, "result": {} }),
            json!([{ "jsonrpc": "2.0", "id": 5, "method": "ping" }]),
        ],
    );
    valid.to_string().into_bytes()
}

fn header_value(rng: &mut fuzz::Rng, name: &str, session: &str) -> Vec<u8> {
    let typical: &[&str] = match name {
        "Content-Type" => &["application/json", "text/plain", "application/json; charset=utf-16", "", "*/*"],
        "Accept" => {
            &["application/json, text/event-stream", "text/event-stream", "application/json", "*/*", "text/html", ""]
        }
        "Mcp-Session-Id" => &[session, session, "", "abc", "00000000-0000-0000-0000-000000000000", "\u{7f}", "a b"],
        "MCP-Protocol-Version" => &["2025-11-25", "2025-03-26", "2026-07-28", "1999-01-01", "", "latest"],
        "Last-Event-ID" => &["0", "1", "-1", "abc", "99999999999999999999999", "1:2:3", ""],
        "Origin" => &["http://localhost", "http://127.0.0.1:1", "https://evil.example", "null", ""],
        _ => &["127.0.0.1", "localhost", "localhost:99999", "[::1]", "evil.example", ""],
    };
    let value = fuzz::pick(rng, typical).as_bytes().to_vec();
    if rng.bool() {
        return value;
    }
    match rng.u8(..6) {
        0 => fuzz::mutate(rng, &value),
        1 => fuzz::pick(rng, fuzz::ODD_STRINGS).as_bytes().to_vec(),
        2 => "x".repeat(rng.usize(..20_000)).into_bytes(),
        _ => value,
    }
}

/// A request to `addr` in the live session `session`: a valid one, then zero to three faults.
fn draft(rng: &mut fuzz::Rng, addr: &str, session: &str) -> Draft {
    let mut draft = Draft {
        method: "POST".to_owned(),
        target: "/mcp".to_owned(),
        headers: [
            ("Host", addr),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", "2025-11-25"),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value.as_bytes().to_vec()))
        .collect(),
        body: mcp_body(rng),
        length: None,
        chunked: false,
        malformed: false,
    };
    for _ in 0..rng.usize(..4) {
        fault(rng, &mut draft, session);
    }
    // A value with a line break or a NUL is no header; hyper refuses the whole request.
    draft.malformed |= draft.headers.iter().any(|(_, value)| value.iter().any(|&b| b == b'\r' || b == b'\n' || b == 0));
    draft
}

/// One thing about `draft` made odd or wrong.
fn fault(rng: &mut fuzz::Rng, draft: &mut Draft, session: &str) {
    match rng.u8(..9) {
        0 => {
            draft.method =
                fuzz::pick(rng, &["GET", "GET", "DELETE", "PUT", "OPTIONS", "HEAD", "PATCH", "BREW", "post", ""])
                    .to_owned();
            draft.malformed |= draft.method.is_empty();
        }
        1 => {
            draft.target =
                fuzz::pick(rng, &["/", "/openapi.json", "/mcp/", "/MCP", "/mcp?x=1", "//mcp", "/add?a=1&b=2", "*"])
                    .to_owned();
        }
        2 => {
            draft.target = String::from_utf8_lossy(&fuzz::mutate(rng, b"/mcp")).into_owned();
            draft.malformed = true;
        }
        3 | 4 => {
            let i = rng.usize(..draft.headers.len());
            let name = draft.headers[i].0.clone();
            draft.headers[i].1 = header_value(rng, &name, session);
        }
        5 => {
            let name = fuzz::pick(rng, &["Last-Event-ID", "Origin", "Accept", "Mcp-Session-Id", "Host"]);
            draft.headers.push((name.to_owned(), header_value(rng, name, session)));
        }
        6 => {
            let name = String::from_utf8_lossy(&fuzz::mutate(rng, b"X-Name")).into_owned();
            draft.headers.push((name, b"v".to_vec()));
            draft.malformed = true;
        }
        7 => draft.body = if rng.bool() { fuzz::bytes(rng, 200) } else { fuzz::mutate(rng, &draft.body) },
        _ => {
            let len = draft.body.len();
            match rng.u8(..4) {
                0 => draft.length = Some((len + 1 + rng.usize(..100)).to_string()),
                1 => draft.length = Some(rng.usize(..len.max(1)).to_string()),
                2 => {
                    draft.length = Some(fuzz::pick(rng, &["-1", "abc", "18446744073709551616", "1, 2", ""]).to_owned())
                }
                _ => draft.chunked = true,
            }
            draft.malformed = true;
        }
    }
}

/// Sends `request` and checks what came back: a status below 500, or for a `malformed` one a
/// closed connection. `half_close` as in [`send`].
fn answered(addr: &str, request: &[u8], malformed: bool, half_close: bool) -> Result<(), String> {
    match send(addr, request, half_close)? {
        Reply::Status(status, head) if status >= 500 => Err(format!("status {status}: {head}")),
        Reply::Status(..) => Ok(()),
        Reply::Closed if malformed => Ok(()),
        Reply::Closed => Err("the connection closed without a response".to_owned()),
    }
}

/// A normal initialize, answered with 200; the session id it gave.
pub fn still_answers(addr: &str) -> Result<String, String> {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } } }).to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    match send(addr, request.as_bytes(), false)? {
        Reply::Status(200, head) => Ok(head
            .lines()
            .find_map(|line| line.to_ascii_lowercase().strip_prefix("mcp-session-id: ").map(str::to_owned))
            .unwrap_or_default()),
        other => Err(format!("a normal initialize got {other:?}")),
    }
}

#[test]
fn arbitrary_http_requests_get_answers_below_500() {
    let mut served = Served::start();
    let addr = served.addr.clone();
    let mut session = still_answers(&addr).unwrap();
    assert!(!session.is_empty(), "the initialize gave no session id");
    for (template, malformed) in REGRESSIONS {
        let request = template.replace("{addr}", &addr).replace("{session}", &session);
        answered(&addr, request.as_bytes(), *malformed, *malformed).unwrap_or_else(|why| panic!("{why}\n{request}"));
    }
    let started = Instant::now();
    let (mut rng, seed, cases) = fuzz::run(SEED, CASES);
    for case in 0..cases {
        let draft = draft(&mut rng, &addr, &session);
        let half_close = draft.length.is_some() || draft.chunked;
        answered(&addr, &draft.bytes(), draft.malformed, half_close).unwrap_or_else(|why| {
            panic!(
                "case {case} (seed {seed:#x}): {why}\n{}",
                String::from_utf8_lossy(&draft.bytes()).chars().take(2000).collect::<String>()
            )
        });
        assert!(served.is_running(), "case {case} (seed {seed:#x}) stopped the server");
        if draft.method == "DELETE" {
            // It may have ended the session the next cases use.
            session = still_answers(&addr).unwrap();
        }
        assert!(started.elapsed() < RUN_LIMIT, "case {case} (seed {seed:#x}) took the run past {RUN_LIMIT:?}");
    }
    still_answers(&addr).unwrap();
}
