//! A raw JSON-RPC client over the real binary's stdin and stdout, one line per message.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// How long any one answer may take before the test fails instead of hanging.
pub const TIMEOUT: Duration = Duration::from_secs(10);

pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

/// The real binary serving MCP over stdio, its stdin and stdout piped, stderr dropped.
pub fn spawn(extra_args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_conformance-server"))
        .arg("mcp")
        .args(extra_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts")
}

impl Server {
    pub fn start(extra_args: &[&str]) -> Self {
        let mut child = spawn(extra_args);
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server { stdin: child.stdin.take(), child, lines }
    }

    /// A server past the handshake, at the newest revision, with these client capabilities.
    pub fn ready(capabilities: Value) -> Self {
        let mut s = Server::start(&[]);
        s.send(&json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":capabilities,"clientInfo":{"name":"t","version":"0"}}}));
        s.response(0);
        s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        let ready = s.recv();
        assert_eq!(ready["method"], "notifications/message", "the readiness log follows initialized");
        s
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    pub fn send(&mut self, msg: &Value) {
        let mut line = msg.to_string().into_bytes();
        line.push(b'\n');
        self.send_raw(&line);
    }

    pub fn request(&mut self, id: i64, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
    }

    /// Sends `tools/call` and returns the response, checking no other response comes first.
    pub fn call(&mut self, id: i64, tool: &str, args: Value) -> Value {
        self.request(id, "tools/call", json!({ "name": tool, "arguments": args }));
        self.response(id)
    }

    /// The next line, parsed; every line must be one JSON object with no raw newline.
    pub fn recv(&self) -> Value {
        let line = self.lines.recv_timeout(TIMEOUT).expect("an answer within the timeout");
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert!(v.is_object(), "stdout line is not an object: {line}");
        assert_eq!(v["jsonrpc"], "2.0");
        v
    }

    /// Messages up to and including the response to `id`.
    pub fn until_response(&self, id: i64) -> (Vec<Value>, Value) {
        let mut before = Vec::new();
        loop {
            let msg = self.recv();
            if msg.get("method").is_none() && msg["id"] == json!(id) {
                return (before, msg);
            }
            before.push(msg);
        }
    }

    /// The response to `id`, asserting nothing but notifications came before it.
    pub fn response(&self, id: i64) -> Value {
        let (before, response) = self.until_response(id);
        for msg in before {
            assert!(msg.get("method").is_some(), "unexpected response before {id}: {msg}");
        }
        response
    }

    /// The next message if one arrives within `wait`.
    pub fn maybe_recv(&self, wait: Duration) -> Option<Value> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Some(serde_json::from_str(&line).expect("JSON")),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Closes stdin, waits for the process to exit, and returns its status and what it wrote after.
    pub fn finish_keeping_output(mut self) -> (ExitStatus, Vec<Value>) {
        drop(self.stdin.take());
        let deadline = std::time::Instant::now() + TIMEOUT;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            assert!(std::time::Instant::now() < deadline, "the server did not exit after EOF");
            std::thread::sleep(Duration::from_millis(10));
        };
        // The reader thread ends at the end of stdout; until then lines may still be on their way.
        let mut rest = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(TIMEOUT) {
            rest.push(serde_json::from_str(&line).expect("JSON"));
        }
        (status, rest)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The error code of a JSON-RPC error response.
pub fn error_code(response: &Value) -> i64 {
    response["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error response: {response}"))
}

/// The JSON a tool result's text block carries: the value, or the failure's parsed body (which
/// `structuredContent` repeats only where the tool's outputSchema admits it).
pub fn body(response: &Value) -> Value {
    let text = response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text block: {response}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("the text block is not JSON ({e}): {text}"))
}
