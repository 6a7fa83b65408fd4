//! The server as a child process: one JSON message per line on its stdin and stdout.

use std::process::Stdio;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use super::ClientError;

/// A client of a server process it started: one JSON message per line on the server's stdin,
/// each line of its stdout a message back.
pub struct StdioClient {
    child: Child,
    stdin: Option<ChildStdin>,
    pub(super) inbox: mpsc::UnboundedReceiver<Value>,
}

impl std::fmt::Debug for StdioClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdioClient").field("pid", &self.child.id()).finish_non_exhaustive()
    }
}

impl StdioClient {
    /// Starts `program args..`; its stderr is discarded.
    pub fn spawn(program: &str, args: &[&str]) -> Result<Self, ClientError> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let stdout = child.stdout.take().ok_or_else(|| ClientError::Protocol("no stdout".into()))?;
        let (tx, inbox) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let msg =
                    serde_json::from_str(&line).unwrap_or_else(|e| Value::String(format!("<not JSON: {e}> {line}")));
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        Ok(StdioClient { stdin: child.stdin.take(), child, inbox })
    }

    /// Sends one message, as one line.
    pub async fn send(&mut self, msg: &Value) -> Result<(), ClientError> {
        self.send_line(msg.to_string().as_bytes()).await
    }

    /// Sends raw bytes as one line (for malformed input).
    pub async fn send_line(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        let stdin = self.stdin.as_mut().ok_or_else(|| ClientError::Protocol("stdin closed".into()))?;
        // One write: a server may take a line in two reads as two messages, the newline alone.
        let mut line = Vec::with_capacity(bytes.len() + 1);
        line.extend_from_slice(bytes);
        line.push(b'\n');
        stdin.write_all(&line).await?;
        stdin.flush().await?;
        Ok(())
    }

    /// Closes the server's stdin and waits for it to exit.
    pub async fn close(mut self) -> Result<(), ClientError> {
        drop(self.stdin.take());
        self.child.wait().await?;
        Ok(())
    }
}
