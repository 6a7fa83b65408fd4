//! The binary as a child process, bounded in time: a run that outlasts its limit is killed and fails.

use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_conformance-server");

/// Runs `conformance-server mcp ARGS` on `input` and returns its exit status and stdout, or
/// why it failed: it did not exit within `limit` after its stdin closed.
pub fn run_stdio(args: &[&str], input: Vec<u8>, limit: Duration) -> Result<(ExitStatus, Vec<u8>), String> {
    let mut child = Command::new(BIN)
        .arg("mcp")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    // A server that stops reading must not block the test: the writer is a thread of its own.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).map(|_| out)
    });
    let status = wait_or_kill(&mut child, limit)?;
    // The server may exit before reading all its input (the write then fails), never before EOF
    // of what it read; what it wrote is all there now.
    let _ = writer.join();
    let out = reader.join().expect("the reader thread").map_err(|e| format!("reading stdout: {e}"))?;
    Ok((status, out))
}

fn wait_or_kill(child: &mut Child, limit: Duration) -> Result<ExitStatus, String> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return Ok(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("the server did not exit within {limit:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `conformance-server serve` on a free loopback port, killed when dropped.
pub struct Served {
    child: tokio::process::Child,
    /// `host:port`
    pub addr: String,
    // The child is a tokio process: its runtime lives as long as it does.
    _runtime: tokio::runtime::Runtime,
}

impl Served {
    pub fn start() -> Self {
        // A worker of its own: it drains the server's stderr (a line per call) between the
        // test's requests, which a current-thread runtime would leave to fill the pipe.
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("a runtime");
        let (child, client) = runtime.block_on(tooltable_golden::process::http(BIN, &[])).expect("the server listens");
        let addr = client.origin().trim_start_matches("http://").to_owned();
        Served { child, addr, _runtime: runtime }
    }

    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().expect("wait").is_none()
    }
}
