//! CORS: only origins named with `--allow-origin` may call from a browser on another origin.

use tooltable_transports::http::HttpOptions;

use crate::support::{send, start};

const APP: &str = "https://app.example.com";

fn preflight(origin: &'static str, method: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![
        ("origin", origin),
        ("access-control-request-method", method),
        ("access-control-request-headers", "content-type, mcp-session-id, mcp-protocol-version"),
    ]
}

const INITIALIZE: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#;

#[tokio::test]
async fn an_allowed_origin_gets_preflights_and_readable_session_headers() {
    let s = start(HttpOptions { allowed_origins: vec![APP.into()], ..HttpOptions::default() }).await;
    let r = send(s.addr, "OPTIONS", "/mcp", &preflight(APP, "POST"), "").await;
    assert_eq!(r.status, 204);
    assert_eq!(r.header("access-control-allow-origin"), Some(APP));
    assert_eq!(r.header("access-control-allow-methods"), Some("GET, POST, DELETE, OPTIONS"));
    let allowed = r.header("access-control-allow-headers").unwrap_or_default();
    for name in ["content-type", "accept", "authorization", "mcp-session-id", "mcp-protocol-version", "last-event-id"] {
        assert!(allowed.contains(name), "{name} in {allowed}");
    }
    let headers =
        [("origin", APP), ("content-type", "application/json"), ("accept", "application/json, text/event-stream")];
    let r = send(s.addr, "POST", "/mcp", &headers, INITIALIZE).await;
    assert_eq!(r.status, 200);
    assert!(r.header("mcp-session-id").is_some());
    assert_eq!(r.header("access-control-allow-origin"), Some(APP));
    assert_eq!(
        r.header("access-control-expose-headers"),
        Some("mcp-session-id, mcp-protocol-version, www-authenticate")
    );
    let rest = send(s.addr, "OPTIONS", "/models/7/state", &preflight(APP, "GET"), "").await;
    assert_eq!(rest.status, 204);
    assert_eq!(rest.header("access-control-allow-methods"), Some("GET, OPTIONS"));
    assert_eq!(send(s.addr, "OPTIONS", "/nowhere", &preflight(APP, "GET"), "").await.status, 404);
}

#[tokio::test]
async fn nothing_is_allowed_cross_origin_by_default() {
    let s = start(HttpOptions::default()).await;
    let local = "http://localhost:5173";
    let r = send(s.addr, "OPTIONS", "/mcp", &preflight(local, "POST"), "").await;
    assert_eq!(r.status, 403);
    assert!(r.json()["error"].as_str().unwrap_or_default().contains("--allow-origin"), "{:?}", r.body);
    assert_eq!(r.header("access-control-allow-origin"), None);
    let headers = [("origin", local), ("content-type", "application/json"), ("accept", "application/json")];
    let r = send(s.addr, "POST", "/mcp", &headers, INITIALIZE).await;
    assert_eq!(r.status, 200, "a local page passes the Origin check");
    assert_eq!(r.header("access-control-allow-origin"), None, "but its browser may not read the answer");
    assert_eq!(send(s.addr, "OPTIONS", "/mcp", &preflight(APP, "POST"), "").await.status, 403);
}
