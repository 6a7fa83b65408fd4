//! A newline-delimited JSON-RPC client of `valem mcp`, for tests, the suite runner and the
//! benchmarks: the real binary, spoken to over its stdin and stdout.

use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

pub struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    /// The notifications read while waiting for responses, in order.
    notifications: Vec<Value>,
}

/// A tool's answer: whether it is a tool error, and its structuredContent (or parsed text).
pub struct ToolAnswer {
    pub is_error: bool,
    pub body: Value,
}

fn broken(why: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.into())
}

impl Client {
    /// Starts `binary mcp OPTIONS...` and completes the handshake.
    pub fn start(binary: &Path, options: &[&str]) -> io::Result<Client> {
        let mut child = Command::new(binary)
            .arg("mcp")
            .args(options)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(broken("the child has no stdin or stdout"));
        };
        let mut client = Client { child, stdin, stdout: BufReader::new(stdout), next_id: 1, notifications: Vec::new() };
        let init = client.request("initialize", json!({ "protocolVersion": "2025-06-18", "capabilities": {} }))?;
        if init["result"]["serverInfo"]["name"] != "valem" {
            return Err(broken(format!("unexpected initialize answer: {init}")));
        }
        client.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))?;
        Ok(client)
    }

    fn send(&mut self, message: &Value) -> io::Result<()> {
        writeln!(self.stdin, "{message}")?;
        self.stdin.flush()
    }

    /// Sends a request and reads lines until its response (notifications are skipped).
    pub fn request(&mut self, method: &str, params: Value) -> io::Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))?;
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line)? == 0 {
                return Err(broken("the server closed stdout"));
            }
            let message: Value = serde_json::from_str(&line).map_err(|e| broken(format!("not JSON: {e}")))?;
            if message["id"] == json!(id) {
                return Ok(message);
            }
            if message.get("id").is_none() {
                self.notifications.push(message);
            }
        }
    }

    /// The notifications the server sent so far (read while waiting for responses).
    #[allow(dead_code)] // Not every binary that includes this file reads them.
    pub fn notifications(&self) -> &[Value] {
        &self.notifications
    }

    /// Calls a tool; a JSON-RPC error comes back as a tool error whose body is that error.
    pub fn call(&mut self, tool: &str, arguments: Value) -> io::Result<ToolAnswer> {
        let response = self.request("tools/call", json!({ "name": tool, "arguments": arguments }))?;
        if let Some(error) = response.get("error") {
            return Ok(ToolAnswer { is_error: true, body: error.clone() });
        }
        let result = &response["result"];
        let body = match result.get("structuredContent") {
            Some(v) => v.clone(),
            None => {
                serde_json::from_str(result["content"][0]["text"].as_str().unwrap_or("null")).unwrap_or(Value::Null)
            }
        };
        Ok(ToolAnswer { is_error: result["isError"] == json!(true), body })
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
