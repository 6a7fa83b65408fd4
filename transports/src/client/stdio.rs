//! A server as a child process: one JSON-RPC message per line on its stdin and stdout; its
//! stderr is the parent's. Lines are read up to a bound (a longer one is skipped); the process
//! ending is the connection ending, with its exit status as the reason.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;

use super::peer::{Peer, lock};
use super::{ClientError, Task};

/// How long a process is given to exit after its stdin closes, and then after SIGTERM.
const GRACE: Duration = Duration::from_secs(2);

/// The running process and the way to its stdin.
pub(crate) struct Process {
    pub label: String,
    lines: mpsc::UnboundedSender<String>,
    child: Mutex<Option<Child>>,
}

/// The pipes of a process not yet connected to its peer.
pub(crate) struct Pipes {
    stdin: ChildStdin,
    stdout: ChildStdout,
    lines: mpsc::UnboundedReceiver<String>,
}

impl Process {
    /// Starts `program args..` with piped stdin and stdout.
    pub(crate) fn spawn(program: &str, args: &[String]) -> Result<(Process, Pipes), ClientError> {
        let label = std::iter::once(program).chain(args.iter().map(String::as_str)).collect::<Vec<_>>().join(" ");
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ClientError::Unreachable(format!("`{label}` could not be started: {e}")))?;
        let missing = || ClientError::Unreachable(format!("`{label}` has no pipes"));
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let (tx, lines) = mpsc::unbounded_channel();
        let process = Process { label: format!("`{label}`"), lines: tx, child: Mutex::new(Some(child)) };
        Ok((process, Pipes { stdin, stdout, lines }))
    }

    /// Queues one message line for the process's stdin.
    pub(crate) fn send(&self, line: String) {
        let _ = self.lines.send(line);
    }

    /// Ends the process: its stdin is closed, then it gets SIGTERM, then SIGKILL, each after a
    /// grace period.
    pub(crate) async fn stop(&self) {
        let Some(mut child) = lock(&self.child).take() else { return };
        // The writer's end goes when the peer's tasks stop; the process sees end of input.
        if tokio::time::timeout(GRACE, child.wait()).await.is_ok() {
            return;
        }
        if let Some(pid) = child.id().and_then(|pid| i32::try_from(pid).ok()) {
            // SAFETY: kill(2) on the child's own pid, which `child` has not reaped yet.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        if tokio::time::timeout(GRACE, child.wait()).await.is_err() {
            let _ = child.kill().await;
        }
    }

    /// Kills the process at once (the client was dropped).
    pub(crate) fn kill(&self) {
        if let Some(child) = lock(&self.child).as_mut() {
            let _ = child.start_kill();
        }
    }

    /// The exit status once the process has ended (its stdout closed), for the reason.
    async fn exit_status(&self) -> String {
        let Some(mut child) = lock(&self.child).take() else { return "the process was stopped".into() };
        match tokio::time::timeout(GRACE, child.wait()).await {
            Ok(Ok(status)) => format!("the process exited ({status})"),
            Ok(Err(e)) => format!("the process could not be waited for: {e}"),
            Err(_) => {
                let _ = child.kill().await;
                "the process closed its stdout and was killed".into()
            }
        }
    }
}

impl Pipes {
    /// Starts the writer and the reader of the process on the peer's runtime.
    pub(crate) fn run(self, peer: &Arc<Peer>) {
        let Pipes { mut stdin, stdout, mut lines } = self;
        let writer = Arc::clone(peer);
        peer.keep(Task::spawn(&peer.runtime, async move {
            while let Some(mut line) = lines.recv().await {
                line.push('\n');
                if let Err(e) = stdin.write_all(line.as_bytes()).await.and(stdin.flush().await) {
                    writer.close(format!("writing to the process failed: {e}"));
                    return;
                }
            }
        }));
        let reader = Arc::clone(peer);
        peer.keep(Task::spawn(&peer.runtime, async move {
            let reason = read_lines(&reader, stdout).await;
            reader.close(reason);
        }));
    }
}

/// Hands every line to the peer until the process closes its stdout; the reason it ended.
async fn read_lines(peer: &Arc<Peer>, mut stdout: ChildStdout) -> String {
    let max = peer.options.max_message_bytes;
    let mut line = Vec::new();
    let mut skipping = false;
    let mut chunk = vec![0; 64 * 1024];
    loop {
        let n = match stdout.read(&mut chunk).await {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => return format!("reading from the process failed: {e}"),
        };
        for piece in chunk[..n].split_inclusive(|&b| b == b'\n') {
            let (body, ended) = match piece.strip_suffix(b"\n") {
                Some(body) => (body, true),
                None => (piece, false),
            };
            if !skipping {
                line.extend_from_slice(body);
                if line.len() > max {
                    tracing::warn!("{}: skipped a message line of more than {max} bytes", peer.label());
                    line.clear();
                    skipping = true;
                }
            }
            if ended {
                if !skipping && !line.is_empty() {
                    peer.dispatch(&line, None);
                }
                line.clear();
                skipping = false;
            }
        }
    }
    match &peer.link {
        super::peer::Link::Stdio(process) => process.exit_status().await,
        super::peer::Link::Http(_) => "the stream ended".into(),
    }
}
