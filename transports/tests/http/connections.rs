//! Connections as resources: timeouts for clients that send slowly or not at all, and the cap.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{Instant, timeout};
use tooltable_transports::http::HttpOptions;

use crate::support::{send, start};

/// Reads until the server closes the connection; what it sent, or `None` if it stayed open.
async fn until_closed(stream: &mut TcpStream, within: Duration) -> Option<String> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    let read_all = async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    };
    timeout(within, read_all).await.ok()?;
    Some(String::from_utf8_lossy(&seen).into_owned())
}

#[tokio::test]
async fn silent_and_slow_header_connections_are_closed_after_the_header_timeout() {
    let s = start(HttpOptions { header_timeout: Duration::from_millis(300), ..HttpOptions::default() }).await;
    let mut silent = TcpStream::connect(s.addr).await.unwrap();
    let mut slow = TcpStream::connect(s.addr).await.unwrap();
    slow.write_all(b"GET /openapi.json HTTP/1.1\r\n").await.unwrap();
    let started = Instant::now();
    let dribble = async {
        // One header line every 100 ms: each byte arrives well within any read timeout.
        for i in 0..30 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if slow.write_all(format!("x-{i}: y\r\n").as_bytes()).await.is_err() {
                return started.elapsed();
            }
        }
        started.elapsed()
    };
    let (silent_closed, _) = tokio::join!(until_closed(&mut silent, Duration::from_secs(3)), dribble);
    assert!(silent_closed.is_some(), "a silent connection is closed");
    assert!(until_closed(&mut slow, Duration::from_secs(3)).await.is_some(), "a slow-header connection is closed");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn a_kept_alive_connection_closes_once_idle_past_the_header_timeout() {
    let s = start(HttpOptions { header_timeout: Duration::from_millis(300), ..HttpOptions::default() }).await;
    let mut conn = TcpStream::connect(s.addr).await.unwrap();
    let host = s.addr.to_string();
    conn.write_all(format!("GET /openapi.json HTTP/1.1\r\nhost: {host}\r\n\r\n").as_bytes()).await.unwrap();
    let answered = until_closed(&mut conn, Duration::from_secs(3)).await.expect("closed after the answer");
    assert!(answered.starts_with("HTTP/1.1 200"), "{answered}");
}

#[tokio::test]
async fn bodies_that_stop_arriving_are_answered_408() {
    let s = start(HttpOptions { body_timeout: Duration::from_millis(300), ..HttpOptions::default() }).await;
    let host = s.addr.to_string();
    let head = |framing: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\naccept: application/json\r\n{framing}\r\n\r\n"
        )
    };
    let mut short = TcpStream::connect(s.addr).await.unwrap();
    short.write_all(format!("{}{{\"jsonrpc\"", head("content-length: 100")).as_bytes()).await.unwrap();
    let mut chunked = TcpStream::connect(s.addr).await.unwrap();
    chunked.write_all(head("transfer-encoding: chunked").as_bytes()).await.unwrap();
    let endless = async {
        for _ in 0..30 {
            if chunked.write_all(b"1\r\n \r\n").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let (short_answer, ()) = tokio::join!(until_closed(&mut short, Duration::from_secs(3)), endless);
    let short_answer = short_answer.expect("the connection ends");
    assert!(short_answer.starts_with("HTTP/1.1 408"), "{short_answer}");
    assert!(short_answer.contains("did not arrive within"), "{short_answer}");
    let chunked_answer = until_closed(&mut chunked, Duration::from_secs(1)).await.expect("the connection ends");
    assert!(chunked_answer.starts_with("HTTP/1.1 408"), "{chunked_answer}");
}

#[tokio::test]
async fn at_the_cap_the_connection_idle_longest_makes_room_for_a_new_client() {
    let s = start(HttpOptions { max_connections: 2, ..HttpOptions::default() }).await;
    let mut oldest = TcpStream::connect(s.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut newer = TcpStream::connect(s.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(send(s.addr, "GET", "/openapi.json", &[], "").await.status, 200, "a normal client gets in");
    assert!(
        until_closed(&mut oldest, Duration::from_secs(1)).await.is_some(),
        "the silent connection idle longest was closed"
    );
    assert!(until_closed(&mut newer, Duration::from_millis(200)).await.is_none(), "the other stays");
}

#[tokio::test]
async fn connections_over_the_cap_are_refused_with_503_while_all_are_busy() {
    let s = start(HttpOptions { max_connections: 2, ..HttpOptions::default() }).await;
    let session = crate::mcp::initialize(s.addr).await;
    let _listening = crate::mcp::open_get_stream(s.addr, &session).await;
    let call = serde_json::json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "slow", "arguments": { "ms": 500 } } });
    let (addr, sid) = (s.addr, session.clone());
    let calling = tokio::spawn(async move { crate::mcp::post(addr, Some(&sid), call).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let refused = send(s.addr, "GET", "/openapi.json", &[], "").await;
    assert_eq!(refused.status, 503);
    assert_eq!(refused.header("retry-after"), Some("1"));
    let message = refused.json()["error"].as_str().unwrap_or_default().to_owned();
    assert!(message.contains("limit of 2 open connections"), "{message}");
    assert_eq!(calling.await.unwrap().status, 200, "the call in flight was not cut");
    assert_eq!(send(s.addr, "GET", "/openapi.json", &[], "").await.status, 200, "its connection makes room once done");
}

#[tokio::test]
async fn a_client_that_half_closes_gets_every_pipelined_response() {
    let s = start(HttpOptions::default()).await;
    let mut conn = TcpStream::connect(s.addr).await.unwrap();
    let host = s.addr.to_string();
    let session = crate::mcp::initialize(s.addr).await;
    let request = |i: usize| {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"slow","arguments":{{"ms":5}}}}}}"#
        );
        format!(
            "POST /mcp HTTP/1.1\r\nhost: {host}\r\nmcp-session-id: {session}\r\ncontent-type: application/json\r\n\
             accept: application/json\r\ncontent-length: {}\r\n\r\n{call}",
            call.len()
        )
    };
    let requests: String = (0..100).map(request).collect();
    conn.write_all(requests.as_bytes()).await.unwrap();
    conn.shutdown().await.unwrap();
    let answers = until_closed(&mut conn, Duration::from_secs(5)).await.expect("the server closes when done");
    assert_eq!(answers.matches("HTTP/1.1 200 OK").count(), 100, "every request answered");
    assert!(answers.contains(r#""id":99"#), "the last one too");
}
