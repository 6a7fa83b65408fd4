//! The REST route of each tool gives the seed's captured results against `examples/full` (the
//! MCP side is the golden session, tests/golden.rs), and REST errors carry their codes.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::common::http_get;

const BIN: &str = env!("CARGO_BIN_EXE_entities");

fn capture() -> Value {
    serde_json::from_str(include_str!("../fixtures/seed-session.json")).expect("the capture is JSON")
}

fn example_root() -> String {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), "examples", "full"].iter().collect();
    root.canonicalize().expect("examples/full exists").display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rest_routes_give_the_tool_results() {
    let root = example_root();
    let (_server, client) = tooltable_golden::process::http(BIN, &["--root".into(), root.clone()]).await.unwrap();
    let url = client.origin();
    let capture = capture();
    let example = |i: usize| capture["examples"][i]["result"].to_string().replace("<ROOT>", &root);
    let expect = |i: usize| serde_json::from_str::<Value>(&example(i)).unwrap();
    assert_eq!(http_get(&url, "/entities").await, (200, expect(0)));
    assert_eq!(http_get(&url, "/entities/User").await, (200, expect(1)));
    assert_eq!(http_get(&url, "/entities/User/objects").await, (200, expect(2)));
    assert_eq!(http_get(&url, "/entities/User/objects/user-alice").await, (200, expect(3)));
    assert_eq!(http_get(&url, "/export?entities=Post").await, (200, expect(4)));
    assert_eq!(http_get(&url, "/files?entity=User").await, (200, expect(5)));
    let (status, body) = http_get(&url, "/entities/Nope/objects").await;
    assert_eq!((status, &body["error"]), (404, &json!("unknown_entity")));
    let (status, body) = http_get(&url, "/entities/User/objects/nobody").await;
    assert_eq!((status, &body["error"]), (404, &json!("object_not_found")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_entity_is_forbidden_over_rest() {
    let args = ["--root".to_owned(), example_root(), "--allow".to_owned(), "User".to_owned()];
    let (_server, client) = tooltable_golden::process::http(BIN, &args).await.unwrap();
    let (status, body) = http_get(&client.origin(), "/entities/Post/objects").await;
    assert_eq!((status, &body["error"]), (403, &json!("entity_not_allowed")));
    let (status, _) = http_get(&client.origin(), "/entities/User/objects").await;
    assert_eq!(status, 200);
}
