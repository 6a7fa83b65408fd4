//! A 2026-07-28 `subscriptions/listen` over a raw connection: its stream is open until the client
//! goes or the server shuts down, and neither waits for a keepalive to notice.

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tooltable_transports::http::HttpOptions;

use crate::support::start;

/// How long what should happen at once may take.
const PROMPTLY: Duration = Duration::from_secs(2);

/// Opens a listen for tool-list changes and reads up to its acknowledgment.
async fn listen(addr: std::net::SocketAddr) -> TcpStream {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
        "params": {
            "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} },
            "notifications": { "toolsListChanged": true },
        },
    })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\naccept: application/json, text/event-stream\r\n\
         content-type: application/json\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: subscriptions/listen\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut conn = TcpStream::connect(addr).await.unwrap();
    conn.write_all(request.as_bytes()).await.unwrap();
    let mut read = Vec::new();
    tokio::time::timeout(PROMPTLY, async {
        while !String::from_utf8_lossy(&read).contains("notifications/subscriptions/acknowledged") {
            let mut chunk = [0u8; 1024];
            let n = conn.read(&mut chunk).await.unwrap();
            assert!(n > 0, "the stream ended before its acknowledgment: {}", String::from_utf8_lossy(&read));
            read.extend_from_slice(&chunk[..n]);
        }
    })
    .await
    .expect("the listen is acknowledged");
    conn
}

#[tokio::test]
async fn shutdown_ends_an_open_listen_without_waiting_for_the_grace_period() {
    let grace = Duration::from_secs(30);
    let mut s = start(HttpOptions { shutdown_grace: grace, sse_keepalive: grace, ..HttpOptions::default() }).await;
    let mut conn = listen(s.addr).await;
    assert_eq!(s.server.open_listens(), 1);
    drop(s.stop.take());
    let served = tokio::time::timeout(PROMPTLY, &mut s.done).await.expect("serve returns before the grace period");
    served.unwrap().unwrap();
    // The stream ended: the client reads to the end of the connection.
    let mut rest = Vec::new();
    tokio::time::timeout(PROMPTLY, conn.read_to_end(&mut rest)).await.expect("the stream ends").unwrap();
    assert_eq!(s.server.open_listens(), 0);
}

/// The listen of a client that is gone ends at once, and with it what it watched: the connection
/// watches for the client's hang-up while the listen's stream is open, long before a keepalive
/// (a minute here) could find it.
#[tokio::test]
async fn the_listen_of_a_client_that_is_gone_ends() {
    let s = start(HttpOptions { sse_keepalive: Duration::from_secs(60), ..HttpOptions::default() }).await;
    let conn = listen(s.addr).await;
    let other = listen(s.addr).await;
    assert_eq!(s.server.open_listens(), 2);
    drop(conn);
    let ended = tokio::time::timeout(PROMPTLY, async {
        while s.server.open_listens() > 1 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    });
    ended.await.expect("the listen ends once its stream is found closed");
    drop(other);
}
