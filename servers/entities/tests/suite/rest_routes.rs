//! The REST route of each tool gives the seed's captured results against `examples/full` (the
//! MCP side is the golden session, tests/golden.rs), and REST errors carry their codes.

use std::path::PathBuf;

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_entities");

fn capture() -> Value {
    serde_json::from_str(include_str!("../fixtures/seed-session.json")).expect("the capture is JSON")
}

fn example_root() -> String {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), "examples", "full"].iter().collect();
    root.canonicalize().expect("examples/full exists").display().to_string()
}

/// One GET over a fresh connection: the status and the JSON body.
async fn get(base: &str, path: &str) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connected");
    // HTTP/1.0: the body comes whole, not chunked, and the connection closes after it.
    let request = format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("sent");
    let mut response = String::new();
    stream.read_to_string(&mut response).await.expect("read");
    let (head, body) = response.split_once("\r\n\r\n").expect("a head and a body");
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status");
    (status, serde_json::from_str(body).expect("a JSON body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rest_routes_give_the_tool_results() {
    let root = example_root();
    let (_server, client) = tooltable_golden::process::http(BIN, &["--root".into(), root.clone()]).await.unwrap();
    let url = client.origin();
    let capture = capture();
    let example = |i: usize| capture["examples"][i]["result"].to_string().replace("<ROOT>", &root);
    let expect = |i: usize| serde_json::from_str::<Value>(&example(i)).unwrap();
    assert_eq!(get(&url, "/entities").await, (200, expect(0)));
    assert_eq!(get(&url, "/entities/User").await, (200, expect(1)));
    assert_eq!(get(&url, "/entities/User/objects").await, (200, expect(2)));
    assert_eq!(get(&url, "/entities/User/objects/user-alice").await, (200, expect(3)));
    assert_eq!(get(&url, "/export?entities=Post").await, (200, expect(4)));
    assert_eq!(get(&url, "/files?entity=User").await, (200, expect(5)));
    let (status, body) = get(&url, "/entities/Nope/objects").await;
    assert_eq!((status, &body["error"]), (404, &json!("unknown_entity")));
    let (status, body) = get(&url, "/entities/User/objects/nobody").await;
    assert_eq!((status, &body["error"]), (404, &json!("object_not_found")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_entity_is_forbidden_over_rest() {
    let args = ["--root".to_owned(), example_root(), "--allow".to_owned(), "User".to_owned()];
    let (_server, client) = tooltable_golden::process::http(BIN, &args).await.unwrap();
    let (status, body) = get(&client.origin(), "/entities/Post/objects").await;
    assert_eq!((status, &body["error"]), (403, &json!("entity_not_allowed")));
    let (status, _) = get(&client.origin(), "/entities/User/objects").await;
    assert_eq!(status, 200);
}
