//! `golden record --out FILE -- SERVER ARGS...`: a stdio MCP server to its host that starts the
//! real server and relays every line both ways unchanged, recording each message before it
//! passes on (so an answer is never written before what it answers). The server's stderr is the
//! recorder's. When the host closes its end, the server's stdin is closed and the recorder ends
//! with the server (killed after [`EXIT`] if it lingers).

use std::process::{ExitStatus, Stdio};

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::Command;

use super::Recorder;

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
    let mut server_out = BufReader::new(server_out);
    let sent = recorder.clone();
    let to_server = async move {
        let mut line = Vec::new();
        loop {
            line.clear();
            match host_in.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            sent.sent(&line)?;
            if server_in.write_all(&line).await.and(server_in.flush().await).is_err() {
                break;
            }
        }
        // Dropping the server's stdin tells it the host is gone.
        drop(server_in);
        Ok::<(), String>(())
    };
    let to_host = async {
        let mut line = Vec::new();
        loop {
            line.clear();
            match server_out.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            recorder.received(&line)?;
            if host_out.write_all(&line).await.and(host_out.flush().await).is_err() {
                break;
            }
        }
        Ok::<(), String>(())
    };
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
