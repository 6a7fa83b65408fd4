//! `HttpOptions::api_key`: every route but `GET /health` and CORS preflights needs the bearer key.

use tooltable_transports::http::ApiKey;
use tooltable_transports::http::HttpOptions;

use crate::support::{send, start};

#[tokio::test]
async fn every_route_but_health_and_preflights_needs_the_key() {
    let s = start(HttpOptions { api_key: Some(ApiKey::new("k3y").unwrap()), ..HttpOptions::default() }).await;
    let health = send(s.addr, "GET", "/health", &[], "").await;
    assert_eq!((health.status, health.json()), (200, serde_json::json!({ "status": "ok" })));
    let init =
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#;
    let json = [("content-type", "application/json"), ("accept", "application/json, text/event-stream")];
    for (method, path, body) in [
        ("POST", "/mcp", init),
        ("GET", "/mcp", ""),
        ("GET", "/openapi.json", ""),
        ("GET", "/models/1/state", ""),
        ("POST", "/health", ""),
    ] {
        let refused = send(s.addr, method, path, &json, body).await;
        assert_eq!(refused.status, 401, "{method} {path}");
        assert_eq!(refused.header("www-authenticate"), Some("Bearer"));
        assert_eq!(refused.json(), serde_json::json!({ "error": "Missing or invalid API key" }));
        let wrong = [json[0], json[1], ("authorization", "Bearer k3y2")];
        assert_eq!(send(s.addr, method, path, &wrong, body).await.status, 401, "{method} {path}");
        let right = [json[0], json[1], ("authorization", "Bearer k3y")];
        assert_ne!(send(s.addr, method, path, &right, body).await.status, 401, "{method} {path}");
    }
    let preflight = [("origin", "http://localhost:3000"), ("access-control-request-method", "POST")];
    assert_ne!(send(s.addr, "OPTIONS", "/mcp", &preflight, "").await.status, 401);
}
