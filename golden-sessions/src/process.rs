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
use tokio::process::{Child, Command};

use crate::client::{ClientError, HttpClient, StdioClient};

/// `bin mcp args..` with a client on its stdin and stdout.
pub fn stdio(bin: &str, args: &[String]) -> Result<StdioClient, ClientError> {
    let mut all = vec!["mcp"];
    all.extend(args.iter().map(String::as_str));
    StdioClient::spawn(bin, &all)
}

/// `bin serve --listen 127.0.0.1:0 args..`, the process and a client of its `/mcp`. The process
/// is killed when the returned `Child` drops. Its stderr is drained by a task of the calling
/// runtime: keep that runtime running while the server serves (a current-thread runtime runs the
/// task only inside `block_on`), or a server that logs each call blocks once the pipe is full.
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
    // Keep draining stderr so the server never blocks writing diagnostics.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok((child, HttpClient::new(&url)?))
}
