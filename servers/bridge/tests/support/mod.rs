//! What the bridge's tests share: the reference hub as a child process over a copy of the example
//! configuration, a fake hub that misbehaves on request, and a free loopback port.

// Each test binary uses its own part of this module.
#![allow(dead_code)]

pub mod fake_hub;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_bridge");
pub const TOKEN: &str = "hub-token-7f3a9c1e";

/// A loopback port nothing listens on (bound, then released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// A copy of `examples/hub` to change freely.
pub fn config_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hub");
    copy_dir(&example, dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Writes `capabilities/ID.yaml` of a kind.
pub fn add_capability(config: &Path, id: &str, kind: &str) {
    std::fs::write(config.join(format!("capabilities/{id}.yaml")), format!("id: {id}\nkind: {kind}\n")).unwrap();
}

pub fn remove_capability(config: &Path, id: &str) {
    std::fs::remove_file(config.join(format!("capabilities/{id}.yaml"))).unwrap();
}

/// The reference hub, killed on drop; `kill` may come from another thread.
#[derive(Clone)]
pub struct Hub {
    child: Arc<Mutex<Option<Child>>>,
    pub addr: String,
    /// Everything it wrote to stderr so far.
    pub stderr: Arc<Mutex<String>>,
}

impl Hub {
    /// `bridge hub --config DIR --listen 127.0.0.1:PORT --token TOKEN`, once it listens.
    pub fn start(config: &Path, port: u16) -> Hub {
        let mut child = Command::new(BIN)
            .args(["hub", "--config"])
            .arg(config)
            .args(["--listen", &format!("127.0.0.1:{port}"), "--token", TOKEN, "--reload-ms", "50"])
            // Each REST request it routes is a line (`POST /v1/capabilities/{id}/call`), for `kill_on_request`.
            .env("RUST_LOG", "warn,bridge=info,tooltable_transports::rest=debug")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the hub starts");
        let stderr = Arc::new(Mutex::new(String::new()));
        let addr = listening_addr(child.stderr.take().unwrap(), Arc::clone(&stderr));
        Hub { child: Arc::new(Mutex::new(Some(child))), addr, stderr }
    }

    pub fn kill(&self) {
        if let Some(mut child) = self.child.lock().unwrap().take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Waits until a kill has finished: the process is reaped, so its listening socket is closed
    /// and a new connection is refused rather than taken by a dying process.
    pub fn wait_killed(&self) {
        // `kill` holds the lock until the process is reaped.
        wait_for(|| self.child.lock().unwrap().is_none());
    }

    /// Kills the hub, from another thread, once it has routed a request to the route `METHOD TEMPLATE`: the call
    /// is then in the hub's hands, however slowly the machine got it there. After 30 s without
    /// one, the hub is killed anyway (and the test's expectation fails).
    pub fn kill_on_request(&self, request: &str) {
        let (hub, request) = (self.clone(), request.to_owned());
        std::thread::spawn(move || {
            wait_for(|| hub.stderr.lock().unwrap().contains(&request));
            hub.kill();
        });
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        if Arc::strong_count(&self.child) == 1 {
            self.kill();
        }
    }
}

/// Polls `done` every 10 ms until it holds or 30 s have passed.
fn wait_for(done: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !done() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Reads stderr until the `listening on http://HOST:PORT` line (with or without more after the
/// address) and gives `HOST:PORT`; keeps collecting stderr afterwards.
fn listening_addr(stderr: impl Read + Send + 'static, log: Arc<Mutex<String>>) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            log.lock().unwrap().push_str(&format!("{line}\n"));
            if let Some(rest) = line.strip_prefix("listening on http://") {
                let addr: String = rest.chars().take_while(|c| !c.is_whitespace() && *c != '/').collect();
                if let Some(tx) = tx.take() {
                    let _ = tx.send(addr);
                }
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(20)).expect("the hub prints its `listening on` line")
}

/// One HTTP/1.1 request with the token, and the status and body of the answer.
pub fn http(addr: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).expect("the hub accepts");
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    (status, body)
}

/// The bridge's arguments for a hub at `addr`: the token, a quick poll, and `extra`.
pub fn bridge_args(addr: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["--addr", addr, "--token", TOKEN, "--poll-ms", "50"].map(str::to_owned).to_vec();
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args
}

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A client of `bridge mcp`, initialized.
pub struct Mcp {
    client: tooltable_golden::client::Client,
    next_id: u64,
}

/// How long an answer may take in these tests (the bridge's own deadline is set lower).
const ANSWER: Duration = Duration::from_secs(20);

impl Mcp {
    pub async fn start(args: &[String]) -> Mcp {
        let stdio = tooltable_golden::process::stdio(BIN, args).expect("the bridge starts");
        let mut mcp = Mcp { client: tooltable_golden::client::Client::Stdio(stdio), next_id: 1 };
        let init = serde_json::json!({
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "test", "version": "1" }
        });
        mcp.request("initialize", init).await;
        let initialized = serde_json::json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        mcp.client.send(&initialized).await.unwrap();
        mcp
    }

    /// The messages before the response, and the response.
    pub async fn request(
        &mut self,
        method: &str,
        params: serde_json::Value,
    ) -> (Vec<serde_json::Value>, serde_json::Value) {
        let id = serde_json::json!(self.next_id);
        self.next_id += 1;
        let msg = serde_json::json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.client.send(&msg).await.unwrap();
        self.client.until_response(&id, ANSWER).await.expect("an answer")
    }

    /// A tool call's result.
    pub async fn call(&mut self, tool: &str, arguments: serde_json::Value) -> serde_json::Value {
        let (_, response) =
            self.request("tools/call", serde_json::json!({ "name": tool, "arguments": arguments })).await;
        response["result"].clone()
    }

    /// The tool names listed now.
    pub async fn tool_names(&mut self) -> Vec<String> {
        let (_, response) = self.request("tools/list", serde_json::json!({})).await;
        let tools = response["result"]["tools"].as_array().cloned().unwrap_or_default();
        tools.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect()
    }

    /// Waits for a notification of that method; false when none comes within `wait`.
    pub async fn notified(&mut self, method: &str, wait: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + wait;
        while let Some(left) = deadline.checked_duration_since(tokio::time::Instant::now()) {
            match self.client.recv(left).await {
                Some(msg) if msg["method"] == method => return true,
                Some(_) => {}
                None => return false,
            }
        }
        false
    }
}
