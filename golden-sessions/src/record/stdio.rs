//! `golden record --out FILE -- SERVER ARGS...`: a stdio MCP server to its host that starts the
//! real server and relays what each side writes to the other unchanged, as it comes, recording
//! each message before the newline that ends it passes on (so an answer is never written before
//! what it answers). The server's stderr is the
//! recorder's. When the host closes its end, the server's stdin is closed and the recorder ends
//! with the server (killed after [`EXIT`] if it lingers).
//!
//! ```
//! use tooltable_golden::placeholders::Placeholders;
//! use tooltable_golden::record::{Recorder, stdio::relay};
//!
//! let path = std::env::temp_dir().join(format!("golden-doc-relay-{}.session", std::process::id()));
//! let recorder = Recorder::create(&path, Placeholders::standard(), "stdio")?;
//! // The host writes one request; the server, one line of shell, answers it.
//! let host_in: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
//! let mut host_out = Vec::new();
//! let server = r#"read request; echo '{"jsonrpc":"2.0","id":1,"result":{}}'"#.to_owned();
//! # let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
//! runtime.block_on(relay("sh", &["-c".to_owned(), server], host_in, &mut host_out, &recorder))?;
//!
//! assert_eq!(host_out, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n", "relayed unchanged");
//! let written = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
//! assert!(written.contains("→ {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}"), "{written}");
//! # std::fs::remove_file(&path).map_err(|e| e.to_string())?;
//! # Ok::<(), String>(())
//! ```

use std::process::{ExitStatus, Stdio};

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::Command;

use super::Recorder;

/// The longest line recorded; a longer one is relayed whole but recorded as a comment saying so.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// How long the server has to exit once its host has closed its end.
pub const EXIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Relays between the host (`host_in`, `host_out`) and `program args..` until both are done;
/// returns how the server exited.
pub async fn relay(
    program: &str,
    args: &[String],
    mut host_in: impl AsyncBufRead + Unpin,
    mut host_out: impl AsyncWrite + Unpin,
    recorder: &Recorder,
) -> Result<ExitStatus, String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{program}: {e}"))?;
    let (Some(mut server_in), Some(server_out)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(format!("{program}: no stdin or stdout"));
    };
    let server_out = BufReader::new(server_out);
    let to_server = async move {
        let sent = pump(&mut host_in, &mut server_in, |line| recorder.line(line, true)).await;
        // Dropping the server's stdin tells it the host is gone.
        drop(server_in);
        sent
    };
    let to_host = pump(server_out, &mut host_out, |line| recorder.line(line, false));
    // The host is done when it closes its end; the server is given `EXIT` to finish (it may
    // still answer) and is killed after. A server that exits first ends the relay: its host
    // then reads the end of the recorder's stdout.
    tokio::pin!(to_server, to_host);
    tokio::select! {
        done = &mut to_host => done?,
        done = &mut to_server => {
            done?;
            match tokio::time::timeout(EXIT, &mut to_host).await {
                Ok(done) => done?,
                Err(_) => {
                    let _ = child.start_kill();
                }
            }
        }
    }
    child.wait().await.map_err(|e| format!("{program}: {e}"))
}

/// Copies `from` to `to` as it comes, and hands `record` each line (`None` for one over
/// [`MAX_LINE`]) before the newline that ends it is passed on, so a message is recorded before
/// its reader can act on it. Ends at the end of `from`, or when `to` is closed.
async fn pump(
    mut from: impl AsyncBufRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    record: impl Fn(Option<&[u8]>) -> Result<(), String>,
) -> Result<(), String> {
    let mut line = Vec::new();
    let mut oversized = false;
    loop {
        let chunk = match from.fill_buf().await {
            Ok([]) | Err(_) => return Ok(()),
            Ok(chunk) => chunk.to_vec(),
        };
        from.consume(chunk.len());
        for piece in chunk.split_inclusive(|b| *b == b'\n') {
            if line.len() + piece.len() > MAX_LINE {
                oversized = true;
            } else {
                line.extend_from_slice(piece);
            }
            if piece.ends_with(b"\n") {
                record((!std::mem::take(&mut oversized)).then_some(line.as_slice()))?;
                line.clear();
            }
            if to.write_all(piece).await.and(to.flush().await).is_err() {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    #[tokio::test]
    async fn relays_every_byte_and_records_each_line_once() {
        let input: &[u8] = b"{\"a\":1}\n{\"b\":2}\r\n{\"c\"";
        let (mut out, lines) = (Vec::new(), RefCell::new(Vec::new()));
        let record = |line: Option<&[u8]>| {
            lines.borrow_mut().push(line.map(|l| String::from_utf8_lossy(l).into_owned()));
            Ok(())
        };
        pump(input, &mut out, record).await.unwrap();
        assert_eq!(out, input, "unchanged, the unfinished line too");
        assert_eq!(*lines.borrow(), [Some("{\"a\":1}\n".to_owned()), Some("{\"b\":2}\r\n".to_owned())]);
    }
}
