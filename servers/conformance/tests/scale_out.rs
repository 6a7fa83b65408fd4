//! Two instances of the server behind a round-robin proxy serve one 2026-07-28 client through a
//! whole exchange: lists, a call, and a multi-round call whose retry lands on the other
//! instance. Nothing is shared between them but the key that signs request states.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, Command};
use tooltable_golden::client::{Client, HttpClient};

const SECRET: &str = "a secret the instances share, for this test only";
const WAIT: Duration = Duration::from_secs(10);

/// `conformance-server serve` on a free port, with the shared key; its `host:port`.
async fn instance() -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_conformance-server"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("TOOLTABLE_STATE_KEY", SECRET)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = tokio::time::timeout(WAIT, async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(rest) = line.strip_prefix("listening on http://") {
                return rest.split('/').next().map(str::to_owned);
            }
        }
        None
    })
    .await
    .ok()
    .flatten()
    .expect("a listening line");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, addr)
}

/// A proxy that sends each new connection to the next backend in turn; its address.
async fn round_robin(backends: Vec<String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        for turn in 0.. {
            let Ok((mut client, _)) = listener.accept().await else { return };
            let backend = backends[turn % backends.len()].clone();
            tokio::spawn(async move {
                if let Ok(mut server) = TcpStream::connect(&backend).await {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                }
            });
        }
    });
    addr
}

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

async fn ask(client: &mut Client, id: i64, method: &str, params: Value) -> Value {
    client.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })).await.unwrap();
    client.until_response(&json!(id), WAIT).await.unwrap().1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_completes_on_the_other_instance() {
    let (_a, first) = instance().await;
    let (_b, second) = instance().await;
    let proxy = round_robin(vec![first, second]).await;
    // The client opens a connection per request, so requests alternate between the instances.
    let mut client = Client::Http(HttpClient::new(&format!("http://{proxy}/mcp")).unwrap());

    let discovered = ask(&mut client, 1, "server/discover", json!({ "_meta": meta(json!({})) })).await;
    assert!(discovered["result"]["supportedVersions"].as_array().unwrap().contains(&json!("2026-07-28")));
    let listed = ask(&mut client, 2, "tools/list", json!({ "_meta": meta(json!({})) })).await;
    assert!(listed["result"]["tools"].as_array().unwrap().len() > 10);

    let call = |extra: Value| {
        let mut params = json!({ "name": "test_input_required_result_elicitation", "arguments": {}, "_meta": meta(json!({ "elicitation": {} })) });
        params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        params
    };
    let round1 = ask(&mut client, 3, "tools/call", call(json!({}))).await;
    assert_eq!(round1["result"]["resultType"], "input_required", "{round1}");
    let state = round1["result"]["requestState"].clone();
    let answers = json!({ "user_name": { "action": "accept", "content": { "name": "Ada" } } });
    let round2 =
        ask(&mut client, 4, "tools/call", call(json!({ "inputResponses": answers, "requestState": state }))).await;
    assert_eq!(round2["result"]["resultType"], "complete", "{round2}");
    assert_eq!(round2["result"]["content"][0]["text"], "Hello, Ada!");
}

/// The shared key is an environment variable, which no flag names: `serve --help` does.
#[test]
fn serve_help_names_the_shared_key() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_conformance-server"))
        .args(["serve", "--help"])
        .output()
        .expect("the server runs");
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    let line =
        text.lines().find(|l| l.trim_start().starts_with("TOOLTABLE_STATE_KEY")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("secret"), "{line}");
}
