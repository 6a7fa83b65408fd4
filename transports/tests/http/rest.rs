use serde_json::json;
use tooltable_transports::http::HttpOptions;

use crate::support::{send, start};

#[tokio::test]
async fn each_error_kind_maps_to_its_status() {
    let s = start(HttpOptions::default()).await;
    for (kind, status) in [
        ("invalid_input", 422),
        ("forbidden", 403),
        ("not_found", 404),
        ("conflict", 409),
        ("bad_request", 400),
        ("too_large", 413),
        ("internal", 500),
    ] {
        let r = send(s.addr, "GET", &format!("/fail/{kind}"), &[], "").await;
        assert_eq!(r.status, status, "{kind}");
        assert_eq!(r.json(), json!({ "error": format!("failed as {kind}") }));
        assert_eq!(r.header("content-type"), Some("application/json"));
    }
    let r = send(s.addr, "POST", "/models/m1/evolve", &[], "").await;
    assert_eq!(r.status, 409);
    assert_eq!(r.json(), json!({ "error": "Version conflict", "expected": "1.0.0", "actual": "m1:1.1.0" }));
}

#[tokio::test]
async fn query_values_are_typed_by_the_input_schema() {
    let s = start(HttpOptions::default()).await;
    let r = send(s.addr, "GET", "/models/7/state?depth=2&ratio=0.25&deep=true&paths=%24.a&paths=%24.b", &[], "").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), json!({ "id": 7, "depth": 2, "ratio": 0.25, "deep": true, "paths": ["$.a", "$.b"] }));
    let r = send(s.addr, "GET", "/models/7/state?depth=deep", &[], "").await;
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["violations"][0]["path"], "/depth");
    let r = send(s.addr, "GET", "/models/7/state?dpeth=2", &[], "").await;
    assert_eq!(r.status, 422, "a misspelt query parameter is refused by name");
    assert!(r.json()["violations"][0]["message"].as_str().unwrap().contains("dpeth"));
}

#[tokio::test]
async fn the_body_field_takes_the_whole_body() {
    let s = start(HttpOptions::default()).await;
    let r = send(
        s.addr,
        "POST",
        "/models/m/mutations?includeTraces=true",
        &[("content-type", "application/json")],
        r#"{"$.price":10}"#,
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), json!({ "id": "m", "mutations": { "$.price": 10 }, "includeTraces": true }));
    let r = send(s.addr, "POST", "/models/m/mutations", &[], "{broken").await;
    assert_eq!(r.status, 400);
    assert!(r.json()["error"].as_str().unwrap().contains("not JSON"));
}

#[tokio::test]
async fn a_declared_status_and_a_json_body() {
    let s = start(HttpOptions::default()).await;
    let r = send(s.addr, "POST", "/things", &[], r#"{"name":"x"}"#).await;
    assert_eq!(r.status, 201);
    assert_eq!(r.header("content-length"), Some("15"), "a whole body is sent with its length, not chunked");
    assert_eq!(r.json(), json!({ "created": "x" }));
    let r = send(s.addr, "POST", "/things", &[], r#"{"name":"a b/c"}"#).await;
    assert_eq!(r.header("location"), Some("/things/a%20b%2Fc"), "the declared Location, filled from the result");
    let r = send(s.addr, "POST", "/things", &[], r#"[1]"#).await;
    assert_eq!((r.status, r.header("location")), (400, None));
}

#[tokio::test]
async fn unknown_routes_and_wrong_methods() {
    let s = start(HttpOptions::default()).await;
    let r = send(s.addr, "GET", "/nothing/here", &[], "").await;
    assert_eq!(r.status, 404);
    assert!(r.json()["error"].as_str().unwrap().contains("/nothing/here"));
    let r = send(s.addr, "DELETE", "/models/7/state", &[], "").await;
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("GET"));
    let r = send(s.addr, "PUT", "/mcp", &[], "").await;
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("GET, POST, DELETE"));
}

#[tokio::test]
async fn an_empty_path_segment_is_an_argument_left_out() {
    let s = start(HttpOptions::default()).await;
    let r = send(s.addr, "GET", "/models//state", &[], "").await;
    assert_eq!(r.status, 422, "the required id is missing, not the route: {:?}", r.body);
    assert_eq!(r.json()["violations"][0]["keyword"], "required");
    assert_eq!(send(s.addr, "GET", "/models/7/state/", &[], "").await.status, 200, "a trailing slash is no segment");
}

#[tokio::test]
async fn a_body_over_the_limit_is_refused() {
    let s = start(HttpOptions { max_body_bytes: 1000, ..HttpOptions::default() }).await;
    let big = format!(r#"{{"name":"{}"}}"#, "x".repeat(5000));
    let r = send(s.addr, "POST", "/things", &[], &big).await;
    assert_eq!(r.status, 413);
    let r = send(
        s.addr,
        "POST",
        "/mcp",
        &[("content-type", "application/json"), ("accept", "application/json, text/event-stream")],
        &big,
    )
    .await;
    assert_eq!(r.status, 413);
}

#[tokio::test]
async fn a_response_over_the_limit_is_a_413_error_body() {
    let s = start(HttpOptions { max_response_bytes: 30, ..HttpOptions::default() }).await;
    let r = send(s.addr, "POST", "/things", &[("content-type", "application/json")], r#"{"name":"short"}"#).await;
    assert_eq!(r.status, 201, "a result within the limit is sent");
    let long = format!(r#"{{"name":"{}"}}"#, "x".repeat(100));
    let r = send(s.addr, "POST", "/things", &[("content-type", "application/json")], &long).await;
    assert_eq!(r.status, 413);
    assert_eq!(r.json()["limit"], 30);
    assert!(r.json()["error"].as_str().unwrap().contains("over the response limit of 30 bytes"));
}

#[tokio::test]
async fn a_body_may_start_with_a_byte_order_mark() {
    let s = start(HttpOptions::default()).await;
    let r =
        send(s.addr, "POST", "/things", &[("content-type", "application/json")], "\u{feff}{\"name\":\"bom\"}").await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert_eq!(r.json(), json!({ "created": "bom" }));
}
