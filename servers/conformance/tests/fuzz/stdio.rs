//! stdio framing: byte streams mixing valid lines, over-long lines, invalid UTF-8, bare `\r` and
//! BOMs. Every line the framing hands on as a request with a readable id gets exactly one answer,
//! every line written is one JSON-RPC message, and the server exits 0 at the end of its input.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};
use tooltable::transport::jsonrpc::{self, Incoming, RequestId};

use crate::fuzz;
use crate::process::run_stdio;

const SEED: u64 = 0x005e_ed0f_5701;
/// Processes started; each reads one stream of up to `LINES` lines.
const CASES: usize = 60;
const LINES: usize = 30;
/// The line limit the server is started with, small so that over-long lines are cheap.
const MAX_LINE: usize = 4096;
const RUN_LIMIT: Duration = Duration::from_secs(20);

/// Streams kept because they are the edges of the framing.
const REGRESSIONS: &[&[u8]] = &[
    b"",
    b"\n\n\r\n",
    b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
    b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
    b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n",
    b"\xEF\xBB\xBF\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
    b"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}\n",
    b"\xff\xfe\n\x00\n",
];

fn valid(id: i64) -> Vec<Value> {
    let request =
        |method: &str, params: Value| json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    vec![
        request(
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } }),
        ),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        request("ping", json!({})),
        request("tools/list", json!({})),
        request("tools/call", json!({ "name": "add_numbers", "arguments": { "a": 2, "b": 40 } })),
        request("tools/call", json!({ "name": "test_simple_text", "arguments": {} })),
        request("resources/read", json!({ "uri": "test://static-text" })),
        request("prompts/list", json!({})),
    ]
}

/// A stream: one line of some kind after another, with the line ending chosen for each.
fn stream(rng: &mut fuzz::Rng) -> Vec<u8> {
    let mut out = Vec::new();
    if rng.bool() {
        out.extend_from_slice(valid(0)[0].to_string().as_bytes());
        out.push(b'\n');
    }
    for n in 1..=rng.usize(..=LINES) {
        let line = fuzz::pick(rng, &valid(n as i64)).to_string().into_bytes();
        match rng.u8(..10) {
            0 => out.extend(std::iter::repeat_n(b'x', MAX_LINE + rng.usize(..3 * MAX_LINE))),
            1 => out.extend(fuzz::bytes(rng, 100)),
            2 => out.extend_from_slice(b"\xEF\xBB\xBF"),
            3..=5 => out.extend(fuzz::mutate(rng, &line)),
            _ => {}
        }
        out.extend(line);
        out.extend_from_slice(fuzz::pick(rng, &[b"\n".as_slice(), b"\n", b"\n", b"\r\n", b"\r", b""]));
    }
    out
}

/// How many answers each id must get, reading `input` as the framing does.
fn expected_answers(input: &[u8]) -> BTreeMap<RequestId, usize> {
    let mut expected = BTreeMap::new();
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    for (i, raw) in lines.into_iter().enumerate() {
        if raw.len() > MAX_LINE {
            // Skipped, but answered with the id its start names (the server keeps that much).
            let head = &raw[..MAX_LINE];
            let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
            if let Some(id) = jsonrpc::request_id_of_prefix(head) {
                *expected.entry(id).or_default() += 1;
            }
            continue;
        }
        let mut line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if i == 0 {
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        let id = match jsonrpc::decode(line) {
            Ok(Incoming::Request { id, .. }) => Some(id),
            Ok(_) => None,
            Err(e) => e.id,
        };
        if let Some(id) = id
            && !line.iter().all(u8::is_ascii_whitespace)
        {
            *expected.entry(id).or_default() += 1;
        }
    }
    expected
}

/// Feeds `input` to a fresh server and checks its answers and its exit.
fn answers_every_request(input: Vec<u8>) -> Result<(), String> {
    let expected = expected_answers(&input);
    let limit = MAX_LINE.to_string();
    let (status, out) = run_stdio(&["--max-line-bytes", &limit], input, RUN_LIMIT)?;
    if !status.success() {
        return Err(format!("the server exited with {status}"));
    }
    let mut answered: BTreeMap<RequestId, usize> = BTreeMap::new();
    for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let msg: Value = serde_json::from_slice(line)
            .map_err(|e| format!("stdout line is not JSON ({e}): {}", String::from_utf8_lossy(line)))?;
        if msg["jsonrpc"] != "2.0" {
            return Err(format!("not a JSON-RPC message: {msg}"));
        }
        if msg.get("method").is_none()
            && let Some(id) = RequestId::from_json(msg["id"].clone())
        {
            *answered.entry(id).or_default() += 1;
        }
    }
    if answered != expected {
        return Err(format!("answers by id {answered:?}, expected {expected:?}"));
    }
    Ok(())
}

#[test]
fn arbitrary_byte_streams_are_answered_and_end_in_a_clean_exit() {
    for input in REGRESSIONS {
        answers_every_request(input.to_vec()).unwrap_or_else(|why| panic!("{why}\n{}", String::from_utf8_lossy(input)));
    }
    let (mut rng, seed, cases) = fuzz::run(SEED, CASES);
    for case in 0..cases {
        let input = stream(&mut rng);
        let shown = String::from_utf8_lossy(&input).chars().take(2000).collect::<String>();
        answers_every_request(input).unwrap_or_else(|why| panic!("case {case} (seed {seed:#x}): {why}\n{shown}"));
    }
}
