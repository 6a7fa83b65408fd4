use serde_json::json;

use crate::support::{Server, error_code};

#[test]
fn a_leading_bom_is_tolerated() {
    let mut s = Server::start(&[]);
    let mut line = b"\xEF\xBB\xBF".to_vec();
    line.extend_from_slice(json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-11-25", "capabilities": {} } }).to_string().as_bytes());
    line.push(b'\n');
    s.send_raw(&line);
    assert_eq!(s.response(1)["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn an_over_long_line_gets_an_error_and_the_server_goes_on() {
    let mut s = Server::start(&["--max-line-bytes", "1000"]);
    let long = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}\n",
        "x".repeat(5000)
    );
    s.send_raw(long.as_bytes());
    let r = s.recv();
    assert_eq!(error_code(&r), -32600);
    assert!(r["error"]["message"].as_str().unwrap().contains("1000"));
    s.request(2, "ping", json!({}));
    assert_eq!(s.response(2)["result"], json!({}));
}

#[test]
fn blank_lines_and_crlf_are_accepted() {
    let mut s = Server::start(&[]);
    s.send_raw(b"\n  \n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n");
    assert_eq!(s.response(1)["result"], json!({}));
}

#[test]
fn end_of_input_ends_the_server_with_exit_0_after_answering() {
    let mut s = Server::ready(json!({}));
    s.request(1, "tools/call", json!({ "name": "sleep", "arguments": { "ms": 200 } }));
    let (status, output) = s.finish_keeping_output();
    assert!(status.success(), "{status:?}");
    assert!(output.iter().any(|m| m["id"] == 1), "the call running at EOF is still answered");
}

#[test]
fn messages_never_contain_raw_newlines() {
    let mut s = Server::ready(json!({}));
    let r = s.call(1, "large_result", json!({ "chars": 10 }));
    // recv() parsed one line as one message; the pretty-printed text inside is escaped.
    assert!(r["result"]["content"][0]["text"].as_str().unwrap().contains('\n'));
}

/// Starts the server and a thread that writes `n` pings to it, reading nothing; the channel
/// says when the writing is done.
fn write_pings_unread(
    extra_args: &[&str],
    n: usize,
) -> (std::process::Child, std::sync::mpsc::Receiver<std::io::Result<()>>) {
    use std::io::Write;

    let mut child = crate::support::spawn(extra_args);
    let mut stdin = child.stdin.take().unwrap();
    let (written, done) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut input = String::new();
        for id in 0..n {
            input.push_str(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n"));
        }
        let _ = written.send(stdin.write_all(input.as_bytes()).map(|()| drop(stdin)));
    });
    (child, done)
}

/// Reads the rest of the server's output, waits for it to exit, and checks it answered ids
/// 0..n in order.
fn assert_every_ping_answered_in_order(mut child: std::process::Child, n: usize) {
    use std::io::Read;

    let mut output = String::new();
    child.stdout.take().unwrap().read_to_string(&mut output).unwrap();
    assert!(child.wait().unwrap().success());
    let ids: Vec<u64> =
        output.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, (0..n as u64).collect::<Vec<_>>());
}

const PINGS: usize = 30_000; // about 1.3 MB in and 1.1 MB out, far past a pipe's 64 KiB

/// A client that writes everything before it reads anything: the server must keep reading while
/// its output waits (no deadlock on two full pipes), and every answer arrives, in order.
#[test]
fn a_client_that_reads_late_gets_every_answer_in_order() {
    let (child, done) = write_pings_unread(&[], PINGS);
    let wrote = done.recv_timeout(crate::support::TIMEOUT);
    assert!(matches!(wrote, Ok(Ok(()))), "the server stopped reading while its output waited: {wrote:?}");
    assert_every_ping_answered_in_order(child, PINGS);
}

/// Past `--max-unread-output`, the server stops reading until the client reads: its memory stays
/// bounded, and nothing is lost once the client catches up.
#[test]
fn unread_output_past_the_bound_holds_the_input_back() {
    let (child, done) = write_pings_unread(&["--max-unread-output", "100000"], PINGS);
    // Unbounded, the 1.3 MB are taken in a fraction of a second (the test above).
    let early = done.recv_timeout(std::time::Duration::from_millis(1500));
    assert!(early.is_err(), "all the input was read while over 100 kB of output waited unread");
    assert_every_ping_answered_in_order(child, PINGS);
    assert!(matches!(done.recv_timeout(crate::support::TIMEOUT), Ok(Ok(()))));
}
