//! An MCP client of `valem mcp` that sees every message: it sends what a test writes (requests,
//! answers to the server's requests, notifications), and a thread reads the server's lines as
//! they come, so that a test waits for the message it expects (bounded, never forever).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long a test waits for a message it expects before it fails.
pub const PATIENCE: Duration = Duration::from_secs(30);

pub struct Peer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
    /// Messages read while waiting for another, in order.
    pub seen: Vec<Value>,
    /// What the server wrote on stderr.
    pub stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Peer {
    /// `binary mcp ARGS..`, not yet initialized.
    pub fn spawn(binary: &Path, args: &[&str]) -> Peer {
        let mut child = Command::new(binary)
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("valem mcp starts");
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let (tell, lines) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let Ok(message) = serde_json::from_str(&line) else { continue };
                if tell.send(message).is_err() {
                    return;
                }
            }
        });
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let (err, kept) =
            (BufReader::new(child.stderr.take().expect("stderr is piped")), std::sync::Arc::clone(&stderr));
        std::thread::spawn(move || {
            for line in err.lines().map_while(Result::ok) {
                kept.lock().unwrap().push_str(&(line + "\n"));
            }
        });
        Peer { child, stdin, lines, seen: Vec::new(), stderr }
    }

    /// `binary mcp ARGS..`, initialized at revision 2025-11-25 with `capabilities`.
    pub fn start(binary: &Path, args: &[&str], capabilities: Value) -> Peer {
        let mut peer = Peer::spawn(binary, args);
        let init = json!({ "protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": { "name": "test", "version": "1" } });
        let answer = peer.request(0, "initialize", init);
        assert!(answer.get("result").is_some(), "{answer}");
        peer.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        peer
    }

    pub fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").expect("valem mcp reads");
        self.stdin.flush().expect("valem mcp reads");
    }

    /// Sends a request and waits for its response.
    pub fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.response(id)
    }

    /// The response to request `id` (messages before it are kept in `seen`).
    pub fn response(&mut self, id: u64) -> Value {
        self.until(|m| m["id"] == json!(id) && m.get("method").is_none())
    }

    /// The next message `wanted` accepts; every message read is kept in `seen`.
    pub fn until(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.seen.iter().position(&wanted) {
            return self.seen.remove(i);
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(message) if wanted(&message) => return message,
                Ok(message) => self.seen.push(message),
                Err(RecvTimeoutError::Timeout) => panic!("no such message in {PATIENCE:?}; seen: {:#?}", self.seen),
                Err(RecvTimeoutError::Disconnected) => panic!("valem mcp ended; seen: {:#?}", self.seen),
            }
        }
    }

    /// Calls a tool: the `result` of its response.
    pub fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        let response = self.request(id, "tools/call", json!({ "name": tool, "arguments": arguments }));
        response.get("result").cloned().unwrap_or_else(|| panic!("{tool}: {response}"))
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
