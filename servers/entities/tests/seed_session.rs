//! The seed's captured session, replayed against `examples/full` through the real binary over
//! stdio and over HTTP: every result equals the capture field for field, once the absolute root
//! is replaced by `<ROOT>`.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tooltable_golden::client::{Client, HttpClient, StdioClient};

const BIN: &str = env!("CARGO_BIN_EXE_entities");
const WAIT: Duration = Duration::from_secs(20);

fn capture() -> Value {
    serde_json::from_str(include_str!("fixtures/seed-session.json")).expect("the capture is JSON")
}

fn example_root() -> String {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), "examples", "full"].iter().collect();
    root.canonicalize().expect("examples/full exists").display().to_string()
}

/// Starts `serve` on a free port and returns the process and its /mcp URL.
async fn serve(root: &str) -> (Child, String) {
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--root", root])
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("serve starts");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let line = tokio::time::timeout(WAIT, lines.next_line()).await.expect("a listening line").unwrap().unwrap();
    let base = line.strip_prefix("listening on ").expect("listening on URL").to_owned();
    (child, format!("{base}/mcp"))
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// What a session shows, in the capture's form.
struct Replay {
    protocol_version: Value,
    tools: Vec<String>,
    /// Per example: the structured result and the result its text block carries.
    results: Vec<(Value, Value)>,
}

async fn replay(mut client: Client, root: &str) -> Replay {
    let mut ask = async |id: i64, method: &str, params: Value| -> Value {
        client.send(&request(id, method, params)).await.expect("sent");
        let (_, response) = client.until_response(&json!(id), WAIT).await.expect("answered");
        // The capture stands `<ROOT>` for the absolute root, in every string.
        let text = response.to_string().replace(root, "<ROOT>");
        serde_json::from_str::<Value>(&text).expect("JSON")["result"].clone()
    };
    let init = json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "seed", "version": "0" } });
    let initialized = ask(1, "initialize", init).await;
    let listed = ask(2, "tools/list", json!({})).await;
    let mut tools: Vec<String> =
        listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    tools.sort();
    let mut results = Vec::new();
    for (i, example) in capture()["examples"].as_array().unwrap().iter().enumerate() {
        let params = json!({ "name": example["tool"], "arguments": example["request"] });
        let result = ask(10 + i as i64, "tools/call", params).await;
        assert_ne!(result["isError"], true, "{} failed: {result}", example["tool"]);
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().expect("a text block")).expect("JSON text");
        results.push((result["structuredContent"].clone(), text));
    }
    Replay { protocol_version: initialized["protocolVersion"].clone(), tools, results }
}

fn assert_matches_capture(replay: &Replay, transport: &str) {
    let capture = capture();
    assert_eq!(replay.protocol_version, capture["protocol_version"], "{transport}: protocol version");
    assert_eq!(json!(replay.tools), capture["tools"], "{transport}: tools");
    for (example, (structured, text)) in capture["examples"].as_array().unwrap().iter().zip(&replay.results) {
        let tool = &example["tool"];
        assert_eq!(structured, &example["result"], "{transport}: {tool} structured result");
        assert_eq!(text, &example["result"], "{transport}: {tool} text result");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_reproduces_the_captured_session() {
    let root = example_root();
    let client = Client::Stdio(StdioClient::spawn(BIN, &["mcp", "--root", &root]).expect("mcp starts"));
    let replay = replay(client, &root).await;
    assert_matches_capture(&replay, "stdio");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_reproduces_the_captured_session() {
    let root = example_root();
    let (_server, url) = serve(&root).await;
    let replay = replay(Client::Http(HttpClient::new(&url).expect("a client")), &root).await;
    assert_matches_capture(&replay, "http");
}

/// One GET over a fresh connection: the status and the JSON body.
async fn get(base: &str, path: &str) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = base.trim_start_matches("http://").trim_end_matches("/mcp");
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
    let (_server, url) = serve(&root).await;
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
