//! What the tests of the built binary share: an MCP client over stdio, a `serve` process and a
//! plain HTTP/1.1 request. Every wait is bounded, so a server that hangs fails the test.

#![allow(dead_code)] // each test file uses part of it

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

pub mod markdown;

use serde_json::{Value, json};

/// How long any one answer may take.
pub const WAIT: Duration = Duration::from_secs(10);

pub const NOTES: &str = env!("CARGO_BIN_EXE_notes");

/// The lines a child writes on one of its pipes, read on a thread so that reads can time out.
fn lines(pipe: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Starts `program args...` with stdin, stdout and stderr as given.
fn spawn(program: &str, args: &[String], [stdin, stdout, stderr]: [Stdio; 3]) -> Child {
    let mut command = Command::new(program);
    command.args(args).stdin(stdin).stdout(stdout).stderr(stderr);
    command.spawn().unwrap_or_else(|e| panic!("cannot start {program}: {e}"))
}

/// A server launched over stdio, as a host launches it.
pub struct StdioClient {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<String>,
    stderr: Receiver<String>,
    /// The command line, for failure messages.
    command: String,
    /// The messages that were no response to a request, in order.
    pub notifications: Vec<Value>,
}

impl StdioClient {
    pub fn spawn(program: &str, args: &[String]) -> Self {
        let mut child = spawn(program, args, [Stdio::piped(), Stdio::piped(), Stdio::piped()]);
        let stdin = child.stdin.take();
        let stdout = lines(child.stdout.take().expect("stdout is piped"));
        let stderr = lines(child.stderr.take().expect("stderr is piped"));
        let command = format!("{program} {}", args.join(" "));
        StdioClient { child, stdin, stdout, stderr, command, notifications: Vec::new() }
    }

    /// What the server wrote on stderr, up to a second's wait for more.
    fn diagnostics(&self) -> String {
        let mut text = Vec::new();
        while let Ok(line) = self.stderr.recv_timeout(Duration::from_secs(1)) {
            text.push(line);
        }
        text.join("\n")
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        if let Err(e) = writeln!(stdin, "{message}").and_then(|()| stdin.flush()) {
            panic!("`{}` does not read stdin ({e}); its stderr:\n{}", self.command, self.diagnostics());
        }
    }

    /// Sends a request and returns its response; what comes before it is kept in `notifications`.
    pub fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let Ok(line) = self.stdout.recv_timeout(WAIT) else {
                panic!("`{}` gave no answer to {method}; its stderr:\n{}", self.command, self.diagnostics())
            };
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            if message["id"] == id {
                return message;
            }
            self.notifications.push(message);
        }
    }

    /// The handshake: `initialize`, then `notifications/initialized`; returns the initialize result.
    pub fn initialize(&mut self) -> Value {
        let response = self.request(0, "initialize", initialize_params());
        self.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        response["result"].clone()
    }
}

impl Drop for StdioClient {
    fn drop(&mut self) {
        drop(self.stdin.take()); // end of input ends the server
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn initialize_params() -> Value {
    json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "notes-tests", "version": "1" } })
}

/// A server running `serve`, killed when dropped.
pub struct Served {
    child: Child,
    /// Its stderr, read on for as long as it runs (the call log writes there).
    stderr: Receiver<String>,
    /// The line it printed when it began to listen.
    pub line: String,
    /// `http://host:port`, taken from that line.
    pub base: String,
}

impl Served {
    /// Starts `program args...` (which must include `serve --listen 127.0.0.1:0`) and waits for it
    /// to print where it listens.
    pub fn start(program: &str, args: &[String]) -> Self {
        let mut child = spawn(program, args, [Stdio::null(), Stdio::null(), Stdio::piped()]);
        let stderr = lines(child.stderr.take().expect("stderr is piped"));
        // Warnings may come first (a fixture's root `allOf`, say): the address is on the `listening` line.
        let line = std::iter::from_fn(|| stderr.recv_timeout(WAIT).ok())
            .find(|l| l.starts_with("listening on "))
            .unwrap_or_else(|| panic!("{program} printed no `listening on` line within {WAIT:?}"));
        let base = listening_base(&line).unwrap_or_else(|| panic!("not a `listening on http://...` line: {line}"));
        Served { child, stderr, line, base }
    }

    pub fn notes() -> Self {
        Self::start(NOTES, &["serve".into(), "--listen".into(), "127.0.0.1:0".into()])
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `http://host:port` from `listening on http://host:port` or `listening on http://host:port/mcp (...)`.
pub fn listening_base(line: &str) -> Option<String> {
    let url = line.strip_prefix("listening on ")?.split_whitespace().next()?;
    let rest = url.strip_prefix("http://")?;
    let authority = rest.split('/').next()?;
    authority.rsplit_once(':')?.1.parse::<u16>().ok()?;
    Some(format!("http://{authority}"))
}

/// An HTTP response: its status, its header lines and its body.
pub struct Response {
    pub status: u16,
    pub headers: String,
    pub body: String,
}

impl Response {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("the body is not JSON ({e}): {}", self.body))
    }
}

/// One HTTP/1.1 request on its own connection (`Connection: close`, so the body ends with it).
pub fn http(base: &str, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> Response {
    request(base, method, path, headers, body.map(|body| ("application/json", body)))
}

/// [`http`] with a body of any type: `(content type, body)`.
pub fn request(base: &str, method: &str, path: &str, headers: &[(&str, &str)], body: Option<(&str, &str)>) -> Response {
    let authority = base.strip_prefix("http://").expect("an http:// base");
    let mut stream = TcpStream::connect(authority).unwrap_or_else(|e| panic!("cannot connect to {authority}: {e}"));
    stream.set_read_timeout(Some(WAIT)).expect("a timeout");
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request += &format!("{name}: {value}\r\n");
    }
    if let Some((content_type, body)) = body {
        request += &format!("Content-Type: {content_type}\r\nContent-Length: {}\r\n", body.len());
    }
    request += "\r\n";
    request += body.map_or("", |(_, body)| body);
    stream.write_all(request.as_bytes()).expect("the request is sent");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap_or_else(|e| panic!("no response to {method} {path}: {e}"));
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no header end: {raw}"));
    let (status_line, headers) = head.split_once("\r\n").unwrap_or((head, ""));
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line: {status_line}"));
    Response { status, headers: headers.to_owned(), body: body.to_owned() }
}

/// POSTs `initialize` to an MCP endpoint and returns the response.
pub fn http_initialize(base: &str, path: &str) -> Response {
    let message = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params() });
    let accept = [("Accept", "application/json, text/event-stream")];
    http(base, "POST", path, &accept, Some(&message.to_string()))
}
