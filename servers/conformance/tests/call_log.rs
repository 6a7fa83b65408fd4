//! The standard command line's call log, on the real binary: by default one line per call on
//! stderr, over stdio (both eras; stdout keeps only the protocol's messages) and Streamable
//! HTTP; none when `RUST_LOG` leaves it out. (REST's line is the transport's tests'.)

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

use serde_json::{Value, json};
use tooltable_golden::client::{Client, HttpClient};

const BIN: &str = env!("CARGO_BIN_EXE_conformance-server");

fn call(id: i64, tool: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": tool, "arguments": arguments } })
}

fn stateless(mut message: Value) -> Value {
    message["params"]["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    message
}

fn handshake() -> Vec<Value> {
    vec![
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
    ]
}

/// `conformance-server mcp` given `messages`, then the end of input: its stdout and stderr.
fn stdio(messages: &[Value], rust_log: Option<&str>) -> (String, String) {
    let mut command = Command::new(BIN);
    command.arg("mcp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).env_remove("RUST_LOG");
    if let Some(filter) = rust_log {
        command.env("RUST_LOG", filter);
    }
    let mut child = command.spawn().expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    for message in messages {
        writeln!(stdin, "{message}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// The call log's lines, as their fields less `ms` (which varies).
fn calls(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|line| line.split_once(" tooltable::calls: ").map(|(_, fields)| fields))
        .map(|fields| {
            let (fields, ms) = fields.rsplit_once(" ms=").expect("ms comes last");
            assert!(ms.parse::<f64>().is_ok(), "{fields}");
            fields.to_owned()
        })
        .collect()
}

#[test]
fn over_stdio_each_call_is_a_line_on_stderr_and_stdout_keeps_only_messages() {
    let mut messages = handshake();
    messages.push(call(1, "add_numbers", json!({ "a": 1, "b": 2 })));
    messages.push(call(2, "test_error_handling", json!({})));
    let (stdout, stderr) = stdio(&messages, None);
    assert!(
        stdout.lines().all(|line| serde_json::from_str::<Value>(line).is_ok_and(|m| m["jsonrpc"] == "2.0")),
        "{stdout}"
    );
    assert_eq!(stdout.lines().count(), 4, "two answers, the readiness log and the calls': {stdout}");
    assert_eq!(
        calls(&stderr),
        [
            "tool=add_numbers transport=stdio era=handshake outcome=ok",
            "tool=test_error_handling transport=stdio era=handshake outcome=tool_error",
        ],
        "{stderr}"
    );

    let (stdout, stderr) = stdio(&[stateless(call(1, "add_numbers", json!({ "a": 1, "b": 2 })))], None);
    assert!(stdout.contains(r#""sum":3"#), "{stdout}");
    assert_eq!(calls(&stderr), ["tool=add_numbers transport=stdio era=stateless outcome=ok"], "{stderr}");
}

#[test]
fn a_log_filter_without_the_call_log_leaves_it_out() {
    let mut messages = handshake();
    messages.push(call(1, "add_numbers", json!({ "a": 1, "b": 2 })));
    let (stdout, stderr) = stdio(&messages, Some("warn"));
    assert!(stdout.contains(r#""sum":3"#), "{stdout}");
    assert!(!stderr.contains("tooltable::calls"), "{stderr}");
}

#[tokio::test]
async fn over_http_each_call_is_a_line_on_stderr() {
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let (lines, received) = channel();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || stderr.lines().map_while(Result::ok).try_for_each(|line| lines.send(line)));
    let wait = Duration::from_secs(10);
    // Warnings may come first (a fixture's root `allOf`): the endpoint is on the `listening` line.
    let url = std::iter::from_fn(|| received.recv_timeout(wait).ok())
        .find_map(|line| Some(line.strip_prefix("listening on ")?.split_whitespace().next()?.to_owned()))
        .expect("the listening line");

    let mut client = Client::Http(HttpClient::new(&url).unwrap());
    let request = stateless(call(1, "add_numbers", json!({ "a": 1, "b": 2 })));
    client.send(&request).await.unwrap();
    let (_, answer) = client.until_response(&json!(1), wait).await.expect("answered");
    assert_eq!(answer["result"]["structuredContent"]["sum"], 3, "{answer}");
    let logged = received.recv_timeout(wait).expect("a line for the call");
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(calls(&logged), ["tool=add_numbers transport=http era=stateless outcome=ok"]);
}
