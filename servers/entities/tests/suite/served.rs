//! The server binary under hostile input, over stdio and HTTP: a named pipe or a slow read
//! holds up no other request, diagnostics reach the client (bounded in number), and a root that
//! cannot be opened says where it was looked for.

use std::time::Duration;

use serde_json::{Value, json};
use tooltable_golden::client::{Client, StdioClient};

use crate::common::{TempRepo, http_get, simple_definition};

const BIN: &str = env!("CARGO_BIN_EXE_entities");
const WAIT: Duration = Duration::from_secs(60);

/// The binary over stdio against `repo`, with these flags besides, initialized.
async fn stdio(repo: &TempRepo, flags: &[&str]) -> Client {
    let root = repo.dir.path().display().to_string();
    let args = [["mcp", "--root", &root].as_slice(), flags].concat();
    let mut client = Client::Stdio(StdioClient::spawn(BIN, &args).unwrap());
    let init =
        json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } });
    client.send(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init })).await.unwrap();
    client.until_response(&json!(1), WAIT).await.unwrap();
    client.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await.unwrap();
    client
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_pipe_does_not_stop_the_server() {
    let repo = TempRepo::new();
    repo.write("entities/User.yaml", simple_definition("users")).write("data/users/a.yaml", "id: a\n");
    repo.fifo("data/users/x.yaml");
    let args = ["--root".to_owned(), repo.dir.path().display().to_string()];
    let (_server, client) = tooltable_golden::process::http(BIN, &args).await.unwrap();
    let origin = client.origin();
    let answers = tokio::time::timeout(Duration::from_secs(60), async {
        (http_get(&origin, "/entities/User/objects").await, http_get(&origin, "/openapi.json").await)
    });
    let ((status, objects), (openapi_status, _)) = answers.await.expect("answered instead of hanging");
    assert_eq!((status, openapi_status), (200, 200));
    assert_eq!(objects["objects"].as_array().unwrap().len(), 1, "{objects}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_read_does_not_hold_up_other_requests() {
    let repo = TempRepo::new();
    let line = format!("  {}\n", "x".repeat(98));
    repo.write("entities/User.yaml", simple_definition("users"))
        .write("data/users/big.yaml", format!("id: big\nname: |\n{}", line.repeat(38_000)));
    let root = repo.dir.path().display().to_string();
    let mut client = Client::Stdio(StdioClient::spawn(BIN, &["mcp", "--root", &root]).unwrap());
    let wait = Duration::from_secs(60);
    let init =
        json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } });
    client.send(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init })).await.unwrap();
    client.until_response(&json!(1), wait).await.unwrap();
    client.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await.unwrap();
    // The first call reads the 3.7 MB file; the ping sent after it is answered first.
    let list = json!({ "name": "object_list", "arguments": { "entity": "User" } });
    client.send(&json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": list })).await.unwrap();
    client.send(&json!({ "jsonrpc": "2.0", "id": 3, "method": "ping" })).await.unwrap();
    let (before_ping, _) = client.until_response(&json!(3), WAIT).await.unwrap();
    assert!(before_ping.iter().all(|m| m["id"] != 2), "the call was answered before the ping: {before_ping:?}");
    let (_, listed) = client.until_response(&json!(2), WAIT).await.unwrap();
    assert_eq!(listed["result"]["structuredContent"]["objects"][0]["id"], "big", "{listed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diagnostics_reach_the_client_bounded_in_number() {
    let repo = TempRepo::new();
    repo.write("entities/User.yaml", simple_definition("users")).write("data/users/a.yaml", "id: a\n");
    for i in 0..25 {
        repo.fifo(&format!("data/users/p{i:02}.yaml"));
    }
    let mut client = stdio(&repo, &[]).await;
    let list = json!({ "name": "object_list", "arguments": { "entity": "User" } });
    let warnings = warnings_of_a_call(&mut client, 2, &list).await;
    assert_eq!(warnings.len(), 21, "{warnings:?}");
    assert_eq!(
        warnings[0],
        json!({ "file": "data/users/p00.yaml", "message": "skipped: it is a named pipe, not a regular file, and is not read" })
    );
    assert_eq!(warnings[20], "5 more diagnostics are in the server's log");
    // The next call reads nothing again, and says nothing again.
    assert_eq!(warnings_of_a_call(&mut client, 3, &list).await, Vec::<Value>::new());
    let mut client = stdio(&repo, &["--max-client-diagnostics", "2"]).await;
    let warnings = warnings_of_a_call(&mut client, 2, &list).await;
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert_eq!(warnings[2], "23 more diagnostics are in the server's log");
}

/// Calls a tool, and gives the data of the warnings logged before its response.
async fn warnings_of_a_call(client: &mut Client, id: u64, params: &Value) -> Vec<Value> {
    client.send(&json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })).await.unwrap();
    let (before, response) = client.until_response(&json!(id), WAIT).await.unwrap();
    assert!(response["result"]["isError"] != true, "{response}");
    before
        .into_iter()
        .filter(|m| m["method"] == "notifications/message" && m["params"]["level"] == "warning")
        .map(|m| m["params"]["data"].clone())
        .collect()
}

#[test]
fn a_relative_root_names_the_working_directory_and_the_path_tried() {
    let elsewhere = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(BIN)
        .current_dir(elsewhere.path())
        .args(["tools", "--root", "servers/entities/examples/full"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let cwd = elsewhere.path().canonicalize().unwrap();
    assert!(stderr.contains(&format!("resolved from the working directory, {}", cwd.display())), "{stderr}");
    assert!(stderr.contains(&cwd.join("servers/entities/examples/full").display().to_string()), "{stderr}");
}
