//! The JSON-RPC decoder and the session under arbitrary lines: valid messages mutated by the
//! shared generator, random bytes, and kept regression inputs, fed before the handshake, after
//! it, and as 2026-07-28 requests carrying their own `_meta`. Nothing panics, nothing hangs, and
//! every request whose id can be read gets exactly one answer (a result or an error, or the
//! cancellation of it) while no notification or stray message is routed as an answer.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use serde_json::{Value, json};
use tooltable::transport::jsonrpc::{self, Incoming, RequestId};
use tooltable::transport::{Destination, Outgoing};
use tooltable::{Cx, Error, Server, table, tool};

#[path = "../../tests/fuzz.rs"]
mod fuzz;
mod support;

type Peer = support::Peer<()>;

const SEED: u64 = 0x005e_ed0f_0115;
/// Cases of the session target; each case is a handful of lines.
const CASES: usize = 1500;
/// How long one case may take to drain before it counts as a hang.
const CASE_LIMIT: Duration = Duration::from_secs(5);
/// The whole run's bound, for a call that never returns.
const RUN_LIMIT: Duration = Duration::from_secs(120);

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pair {
    a: i64,
    b: i64,
}

/// Adds two integers.
#[tool(read_only)]
async fn add(args: Pair) -> Result<Value, Error> {
    Ok(json!(args.a.checked_add(args.b)))
}

/// Logs, then answers.
#[tool]
async fn chatty(cx: &Cx<()>) -> Result<Value, Error> {
    cx.info("working");
    Ok(json!("done"))
}

/// Asks the client a question: a request the random lines may answer, or answer wrongly.
#[tool]
async fn ask(cx: &Cx<()>) -> Result<Value, Error> {
    let schema = json!({ "type": "object", "properties": { "name": { "type": "string" } } });
    cx.elicit_form("Your name?", schema).await.map_err(|e| Error::bad_request(e.to_string()))
}

fn server() -> Server<()> {
    Server::builder(()).tools(table![add, chatty, ask]).build().unwrap()
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "t", "version": "0" },
    })
}

/// Valid messages of every kind the session reads, requests numbered `id`.
fn valid(id: i64, with_meta: bool) -> Vec<Value> {
    let request = |method: &str, mut params: Value| {
        if with_meta {
            params["_meta"] = meta();
        }
        json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
    };
    vec![
        request(
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } }),
        ),
        request("ping", json!({})),
        request("tools/list", json!({ "cursor": "x" })),
        request("tools/call", json!({ "name": "add", "arguments": { "a": 2, "b": 40 } })),
        request("tools/call", json!({ "name": "chatty", "arguments": {}, "_meta": { "progressToken": 7 } })),
        request("tools/call", json!({ "name": "ask", "arguments": {} })),
        request("resources/list", json!({})),
        request("resources/read", json!({ "uri": "test://nothing" })),
        request("prompts/get", json!({ "name": "p", "arguments": { "a": "b" } })),
        request("logging/setLevel", json!({ "level": "debug" })),
        request(
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "p" }, "argument": { "name": "a", "value": "" } }),
        ),
        request("server/discover", json!({})),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": id - 1 } }),
        json!({ "jsonrpc": "2.0", "id": id, "result": {} }),
        json!({ "jsonrpc": "2.0", "id": id - 1, "result": { "action": "accept", "content": { "name": "n" } } }),
        json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -1, "message": "no" } }),
    ]
}

/// Lines kept because they were hostile once, or are the edges of the envelope.
fn regressions() -> Vec<Vec<u8>> {
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"add","arguments":{}1{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    [
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":7}"#,
        r#"{"jsonrpc":"2.0","id":"","method":""}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"a":[]}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1e400,"b":0}}}"#,
        "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\0",
        "[]",
        "",
        &deep,
    ]
    .iter()
    .map(|line| line.as_bytes().to_vec())
    .collect()
}

/// The id the session must answer for this line, when the line is a request or a readable one.
fn answerable(line: &[u8]) -> Option<RequestId> {
    match jsonrpc::decode(line) {
        Ok(Incoming::Request { id, .. }) => Some(id),
        Ok(_) => None,
        Err(e) => e.id,
    }
}

/// Which ids these messages answer, checking each message is well formed for its route.
fn answers(out: &[Outgoing]) -> Result<BTreeMap<RequestId, usize>, String> {
    let mut answered = BTreeMap::new();
    for msg in out {
        let (text, sent) = support::split(msg.clone());
        let json: Value = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).map_err(|e| format!("not JSON ({e}): {text}"))?
        };
        match &sent {
            support::Sent::To(Destination::Response(id)) => {
                let is_answer =
                    json.get("method").is_none() && (json.get("result").is_some() != json.get("error").is_some());
                if !is_answer || RequestId::from_json(json["id"].clone()).as_ref() != Some(id) {
                    return Err(format!("routed as the answer to {id} but is not one: {json}"));
                }
                *answered.entry(id.clone()).or_default() += 1;
            }
            support::Sent::Cancelled(id) => *answered.entry(id.clone()).or_default() += 1,
            support::Sent::To(Destination::During(_) | Destination::Session) | support::Sent::CloseStream(_) => {
                if json.get("method").is_none() && !json.is_null() && !json["id"].is_null() {
                    return Err(format!("an answer to {} sent as {sent:?}: {json}", json["id"]));
                }
            }
        }
    }
    Ok(answered)
}

/// Feeds `lines` to a session in `phase` (0 new, 1 initialized, 2 new with 2026-07-28 `_meta`),
/// then checks every answerable line got its one answer.
async fn exchange(server: &Server<()>, phase: u8, lines: &[Vec<u8>]) -> Result<(), String> {
    let mut peer =
        if phase == 1 { Peer::initialized(server, json!({ "elicitation": {} })) } else { Peer::connect(server) };
    peer.received();
    let mut expected: BTreeMap<RequestId, usize> = BTreeMap::new();
    for line in lines {
        if let Some(id) = answerable(line) {
            *expected.entry(id).or_default() += 1;
        }
        catch_unwind(AssertUnwindSafe(|| peer.session.handle_bytes(line, &support::CONTEXT)))
            .map_err(|_| format!("the session panicked on {}", String::from_utf8_lossy(line)))?;
    }
    tokio::time::timeout(CASE_LIMIT, peer.session.drain(CASE_LIMIT))
        .await
        .map_err(|_| "the session did not drain".to_owned())?;
    let got = answers(&peer.received())?;
    if got != expected {
        return Err(format!("answers by id {got:?}, expected {expected:?}"));
    }
    Ok(())
}

/// A valid message numbered `id`, written half the time as the TypeScript SDK orders it (its
/// `jsonrpc` and `id` last), mutated three times in four.
fn message(rng: &mut fuzz::Rng, id: i64, with_meta: bool) -> Vec<u8> {
    let picked = fuzz::pick(rng, &valid(id, with_meta));
    let written = if rng.u8(..2) == 0 { envelope_last(&picked) } else { picked };
    let text = written.to_string().into_bytes();
    if rng.u8(..4) == 0 { text } else { fuzz::mutate(rng, &text) }
}

/// The message with its `jsonrpc` and `id` moved after its other members.
fn envelope_last(message: &Value) -> Value {
    let Value::Object(members) = message else { return message.clone() };
    let envelope = |key: &str| matches!(key, "jsonrpc" | "id");
    let (first, last): (Vec<_>, Vec<_>) = members.iter().partition(|(key, _)| !envelope(key));
    Value::Object(first.into_iter().chain(last).map(|(key, value)| (key.clone(), value.clone())).collect())
}

fn show(lines: &[Vec<u8>]) -> String {
    lines.iter().map(|l| String::from_utf8_lossy(l).chars().take(300).collect::<String>() + "\n").collect()
}

#[tokio::test]
async fn arbitrary_lines_get_one_answer_per_readable_request() {
    let server = server();
    for phase in 0..3 {
        for line in regressions() {
            exchange(&server, phase, std::slice::from_ref(&line))
                .await
                .unwrap_or_else(|why| panic!("{why}\n{}", show(&[line])));
        }
    }
    let (mut rng, seed, cases) = fuzz::run(SEED, CASES);
    let watchdog = fuzz::Watchdog::start("the session", seed, RUN_LIMIT);
    for case in 0..cases {
        watchdog.at(case);
        let phase = rng.u8(..3);
        let lines: Vec<Vec<u8>> = (0..1 + rng.usize(..6))
            .map(|n| {
                let id = 1 + n as i64;
                if rng.u8(..8) == 0 { fuzz::bytes(&mut rng, 200) } else { message(&mut rng, id, phase == 2) }
            })
            .collect();
        exchange(&server, phase, &lines)
            .await
            .unwrap_or_else(|why| panic!("case {case} (seed {seed:#x}), phase {phase}: {why}\n{}", show(&lines)));
    }
}

#[tokio::test]
async fn a_call_is_answered_alike_however_its_members_are_ordered_and_spaced() {
    // The two orders clients write are read from their constant parts, the others as values.
    let server = server();
    let params = r#"{"name":"add","arguments":{"a":2,"b":40}}"#;
    let lines = [
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#),
        format!(r#"{{"method":"tools/call","params":{params},"jsonrpc":"2.0","id":1}}"#),
        format!(r#"{{"id":1,"jsonrpc":"2.0","params":{params},"method":"tools/call"}}"#),
        format!(r#"{{ "method": "tools/call", "params": {params}, "jsonrpc": "2.0", "id": 1 }}"#),
    ];
    let expected = json!({ "jsonrpc": "2.0", "id": 1, "result": { "content": [{ "type": "text", "text": "42" }], "isError": false } });
    for line in lines {
        let mut peer = Peer::initialized(&server, json!({}));
        peer.session.handle_bytes(line.as_bytes(), &support::CONTEXT);
        assert_eq!(peer.response(1).await, expected, "{line}");
    }
}

#[test]
fn decode_refuses_arbitrary_bytes_with_a_json_rpc_error() {
    let (mut rng, seed, cases) = fuzz::run(SEED, 10 * CASES);
    let watchdog = fuzz::Watchdog::start("the decoder", seed, RUN_LIMIT);
    for case in 0..cases {
        watchdog.at(case);
        let with_meta = rng.bool();
        let line = if rng.bool() { fuzz::bytes(&mut rng, 300) } else { message(&mut rng, 1, with_meta) };
        let refusal = catch_unwind(|| jsonrpc::decode(&line).err().map(|e| e.error))
            .unwrap_or_else(|_| panic!("case {case} (seed {seed:#x}): decode panicked on {line:?}"));
        if let Some(error) = refusal {
            let code = error.code;
            assert!(
                [jsonrpc::code::PARSE_ERROR, jsonrpc::code::INVALID_REQUEST, jsonrpc::code::INVALID_PARAMS]
                    .contains(&code),
                "case {case} (seed {seed:#x}): code {code} for {}",
                String::from_utf8_lossy(&line)
            );
            assert!(!error.message.is_empty());
        }
    }
}
