//! The host application run as users run it: its own route answers beside the notes server
//! mounted at `/mcp` (both eras, with the guards `serve` has) and its REST routes and OpenAPI
//! document under `/api`; the official Python SDK's client works with it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};
use tooltable::context::Era;
use tooltable_transports::client::{Client, Options, Target};

/// The application, listening on a free port; killed when dropped.
struct App {
    child: Child,
    /// `127.0.0.1:PORT`.
    addr: String,
}

impl App {
    fn start() -> App {
        let mut child = Command::new(env!("CARGO_BIN_EXE_embed-axum"))
            .args(["--listen", "127.0.0.1:0"])
            .stderr(Stdio::piped())
            .spawn()
            .expect("embed-axum starts");
        let mut line = String::new();
        BufReader::new(child.stderr.take().expect("its stderr")).read_line(&mut line).expect("a line");
        let addr = line
            .strip_prefix("listening on http://")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("the standard listening line, not {line:?}"))
            .to_owned();
        assert_eq!(
            line,
            format!(
                "listening on http://{addr}/mcp (REST http://{addr}/api/, OpenAPI http://{addr}/api/openapi.json)\n"
            )
        );
        App { child, addr }
    }

    fn mcp_url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// One HTTP/1.1 request on a connection of its own: the status, the headers (lower case) and
    /// the body.
    fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String, String) {
        let mut stream = TcpStream::connect(&self.addr).expect("the application accepts");
        let mut request = format!("{method} {path} HTTP/1.1\r\nhost: {}\r\nconnection: close\r\n", self.addr);
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
        let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status");
        (status, head.to_lowercase(), body.to_owned())
    }
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_application_answers_its_own_route_beside_the_mounted_server() {
    let app = App::start();
    let (status, head, body) = app.send("GET", "/", &[], "");
    assert_eq!((status, body.as_str()), (200, "embed-axum: the host application"));
    assert!(head.contains("content-type: text/plain"), "{head}");
    // Not the server's: the application's router answers what it does not route.
    assert_eq!(app.send("GET", "/health", &[], "").0, 404);
}

#[test]
fn the_mounted_endpoint_keeps_its_guards() {
    let app = App::start();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } }
    })
    .to_string();
    let json_headers = [("content-type", "application/json"), ("accept", "application/json, text/event-stream")];
    let (status, _, body) =
        app.send("POST", "/mcp", &[json_headers[0], json_headers[1], ("origin", "http://evil.example")], &initialize);
    assert_eq!(status, 403, "a foreign Origin: {body}");
    let (status, _, body) = app.send("POST", "/mcp", &json_headers, &"x".repeat(5 * 1024 * 1024));
    assert_eq!(status, 413, "a body over the limit: {body}");
    let (status, head, body) = app.send("POST", "/mcp", &json_headers, &initialize);
    assert_eq!(status, 200, "{body}");
    assert!(head.contains("mcp-session-id: "), "{head}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["result"]["serverInfo"]["name"], "notes-example");
}

#[test]
fn the_rest_routes_and_their_document_are_under_the_prefix() {
    let app = App::start();
    let (status, _, body) = app.send("GET", "/api/openapi.json", &[], "");
    assert_eq!(status, 200, "{body}");
    let document: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(document["servers"], json!([{ "url": "/api" }]));
    let paths: Vec<&String> = document["paths"].as_object().unwrap().keys().collect();
    assert_eq!(paths, ["/notes", "/notes/{noteId}", "/notes/{noteId}/text"]);
    let (status, _, created) =
        app.send("POST", "/api/notes", &[("content-type", "application/json")], r#"{"title":"Milk","text":"2 l"}"#);
    assert_eq!(status, 201, "{created}");
    let (status, _, note) = app.send("GET", "/api/notes/1", &[], "");
    assert_eq!((status, serde_json::from_str::<Value>(&note).unwrap()["title"].clone()), (200, json!("Milk")));
    // The routes are the server's only under the prefix.
    assert_eq!(app.send("GET", "/notes", &[], "").0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn both_eras_call_the_tools_and_share_the_notes_with_rest() {
    let app = App::start();
    for era in [Era::Handshake, Era::Stateless] {
        let client = Client::connect(Target::url(app.mcp_url()), Options::default().era(era)).await.unwrap();
        assert_eq!(client.era(), era);
        let title = format!("{era:?}");
        let created = client
            .request("tools/call", json!({ "name": "create_note", "arguments": { "title": title, "text": "-" } }))
            .await
            .unwrap();
        assert_eq!(created["structuredContent"]["title"], title, "{created}");
        client.close().await;
    }
    let (_, _, listed) = app.send("GET", "/api/notes", &[], "");
    let titles: Vec<Value> = serde_json::from_str::<Value>(&listed).unwrap()["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["title"].clone())
        .collect();
    assert_eq!(titles, [json!("Handshake"), json!("Stateless")]);
}

/// The official Python SDK's client, in both of its modes, lists the tools and calls one.
#[test]
#[cfg_attr(not(has_python_mcp), ignore = "needs the official MCP Python SDK: see test-support")]
fn the_python_sdk_client_works_with_the_mounted_server() {
    let app = App::start();
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/../../golden-sessions/sdk-tests/tests/python/client.py");
    for mode in ["legacy", "auto"] {
        let call = format!(r#"create_note={{"title":"from {mode}","text":"-"}}"#);
        let output = Command::new(test_support::PYTHON_MCP.path())
            .args([client, mode, "http", "--call", &call, &app.mcp_url()])
            .output()
            .expect("python runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{mode}: {}\n{stdout}", String::from_utf8_lossy(&output.stderr));
        let answer: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{mode}: {e}: {stdout}"));
        assert_eq!(answer["result"]["structured_content"]["title"], format!("from {mode}"), "{mode}: {answer}");
    }
}
