//! Starting a server binary: `mcp` with a stdio client, or `serve` on a free port with an HTTP client.
//!
//! ```
//! use std::os::unix::fs::PermissionsExt;
//! use std::time::Duration;
//!
//! use serde_json::json;
//! use tooltable_golden::client::Client;
//!
//! // A stand-in for a server binary: `server mcp` answers one request.
//! let dir = std::env::temp_dir().join(format!("golden-doc-process-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let bin = dir.join("server");
//! std::fs::write(&bin, "#!/bin/sh\n[ \"$1\" = mcp ] || exit 2\nread request\necho '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}'\n")?;
//! std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755))?;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
//! let mut client = Client::Stdio(tooltable_golden::process::stdio(bin.to_str().unwrap(), &[])?);
//! client.send(&json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" })).await?;
//! let (_, response) = client.until_response(&json!(1), Duration::from_secs(10)).await?;
//! assert_eq!(response["result"], json!({}));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStderr, Command};

use crate::client::{ClientError, HttpClient, StdioClient};

/// `bin mcp args..` with a client on its stdin and stdout.
pub fn stdio(bin: &str, args: &[String]) -> Result<StdioClient, ClientError> {
    let mut all = vec!["mcp"];
    all.extend(args.iter().map(String::as_str));
    StdioClient::spawn(bin, &all)
}

/// `bin serve --listen 127.0.0.1:0 args..`, the process and a client of its `/mcp`. The process
/// is killed when the returned `Child` drops. Its stderr is drained by a thread of its own, so a
/// server that logs each call never blocks on a full pipe, whatever the calling runtime does.
pub async fn http(bin: &str, args: &[String]) -> Result<(Child, HttpClient), ClientError> {
    let mut child = Command::new(bin)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let stderr = child.stderr.take().ok_or_else(|| ClientError::Protocol("no stderr".into()))?;
    let mut lines = BufReader::new(stderr).lines();
    let url = tokio::time::timeout(Duration::from_secs(10), async {
        while let Ok(Some(line)) = lines.next_line().await {
            // `listening on MCP_URL (REST ..., OpenAPI ...)`: the first word is the endpoint.
            if let Some(url) = line.strip_prefix("listening on ").and_then(|rest| rest.split_whitespace().next()) {
                return Some(url.to_owned());
            }
        }
        None
    })
    .await
    .ok()
    .flatten()
    .ok_or_else(|| ClientError::Protocol(format!("{bin} serve printed no `listening on` line")))?;
    drain(lines.into_inner().into_inner())?;
    Ok((child, HttpClient::new(&url)?))
}

/// Reads `stderr` to its end on a thread of its own: a task would run only while its runtime
/// polls it (a current-thread runtime, only inside `block_on`).
fn drain(stderr: ChildStderr) -> std::io::Result<()> {
    #[cfg(unix)]
    let mut file = std::fs::File::from(stderr.into_owned_fd()?);
    #[cfg(windows)]
    let mut file = std::fs::File::from(stderr.into_owned_handle()?);
    std::thread::Builder::new()
        .name("server-stderr".into())
        .spawn(move || std::io::copy(&mut file, &mut std::io::sink()))?;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::time::{Duration, Instant};

    /// A server that writes far more to stderr than a pipe holds is never blocked by it, though
    /// the runtime that started it is not running.
    #[test]
    fn a_chatty_server_is_not_blocked_by_its_stderr() {
        let dir = std::env::temp_dir().join(format!("golden-process-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (bin, done) = (dir.join("server"), dir.join("done"));
        let script = format!(
            "#!/bin/sh\necho 'listening on http://127.0.0.1:9/mcp' >&2\nhead -c 1000000 /dev/zero >&2\ntouch '{}'\nsleep 30\n",
            done.display()
        );
        std::fs::write(&bin, script).unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (child, _client) = runtime.block_on(super::http(bin.to_str().unwrap(), &[])).unwrap();
        let start = Instant::now();
        while !done.exists() && start.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let finished = done.exists();
        drop(child);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(finished, "the server stayed blocked writing its stderr");
    }
}
