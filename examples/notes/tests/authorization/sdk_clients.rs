//! The official SDKs' clients, given only the server's URL and their client credentials, find the
//! authorization server through their own OAuth discovery (the challenge, the protected resource
//! metadata, the issuer's metadata), get a token for the server with the client_credentials
//! grant and call its tools: the TypeScript SDK's `ClientCredentialsProvider`
//! (`authorization/client.mjs`) and the Python SDK's `ClientCredentialsOAuthProvider`
//! (`authorization/client.py`), in both of its modes.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::started;

/// How long one client run may take, discovery and token requests included.
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// Runs a client to its end within [`RUN_LIMIT`]: whether it succeeded, and the JSON line it
/// printed per call.
fn run(command: &mut Command) -> (bool, Vec<Value>) {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the client starts");
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).map(|_| text)
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the client is waited for") {
            break status;
        }
        if started.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the client ran past {RUN_LIMIT:?}: {command:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = out.join().unwrap().expect("stdout is read");
    let stderr = err.join().unwrap().expect("stderr is read");
    let lines = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not a call's line ({e}): {line}\n{stderr}")))
        .collect();
    if !status.success() {
        eprintln!("{command:?} ended {status}:\n{stderr}");
    }
    (status.success(), lines)
}

/// The one line a client printed for `tool`.
fn answer<'a>(lines: &'a [Value], tool: &str) -> &'a Value {
    let mut found = lines.iter().filter(|line| line["tool"] == tool);
    let answer = found.next().unwrap_or_else(|| panic!("no call of {tool}: {lines:?}"));
    assert!(found.next().is_none(), "one call of {tool}: {lines:?}");
    answer
}

fn titles(listed: &Value) -> Vec<&str> {
    let notes = listed["notes"].as_array().unwrap_or_else(|| panic!("a list of notes: {listed}"));
    notes.iter().map(|note| note["title"].as_str().unwrap_or_default()).collect()
}

#[test]
#[cfg_attr(
    not(all(has_oidc_provider, has_typescript_mcp)),
    ignore = "needs Node, oidc-provider and the official MCP TypeScript SDK: see test-support"
)]
fn the_typescript_sdk_client_gets_its_token_by_discovery_and_calls_tools_within_its_scopes() {
    let (provider, served) = started();
    let url = format!("{}/mcp", served.base);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/authorization/client.mjs");
    let sdk = test_support::TYPESCRIPT_MCP.path();
    let client = |id: &str, scope: &str, calls: &[(&str, Value)]| {
        let mut command = Command::new("node");
        command.arg(script).arg(&sdk).args([url.as_str(), &provider.issuer, id, &format!("{id}-secret"), scope]);
        for (tool, arguments) in calls {
            command.args([tool.to_string(), arguments.to_string()]);
        }
        let (succeeded, lines) = run(&mut command);
        assert!(succeeded, "{id}: {lines:?}");
        lines
    };

    let writer = client(
        "writer",
        "notes:read notes:write",
        &[("create_note", json!({ "title": "From TypeScript", "text": "-" })), ("list_notes", json!({}))],
    );
    let created = &answer(&writer, "create_note")["result"];
    assert_eq!(created["structuredContent"]["title"], "From TypeScript", "{created}");
    assert_eq!(titles(&answer(&writer, "list_notes")["result"]["structuredContent"]), ["From TypeScript"]);

    // A client allowed only to read reads; its call of a writing tool is refused (403: the SDK
    // asks again for the scope it is configured with, which still lacks notes:write) and makes
    // nothing.
    let reader = client(
        "reader",
        "notes:read",
        &[
            ("list_notes", json!({})),
            ("create_note", json!({ "title": "Not made", "text": "-" })),
            ("list_notes", json!({})),
        ],
    );
    let refused = &answer(&reader, "create_note")["error"];
    assert!(refused.as_str().is_some_and(|e| e.contains("403")), "{reader:?}");
    let listings: Vec<_> = reader.iter().filter(|line| line["tool"] == "list_notes").collect();
    assert_eq!(listings.len(), 2, "{reader:?}");
    for listed in listings {
        assert_eq!(titles(&listed["result"]["structuredContent"]), ["From TypeScript"]);
    }
}

#[test]
#[cfg_attr(
    not(all(has_oidc_provider, has_python_mcp)),
    ignore = "needs Node, oidc-provider and the official MCP Python SDK: see test-support"
)]
fn the_python_sdk_client_gets_its_token_by_discovery_and_calls_tools_in_both_modes() {
    let (provider, served) = started();
    let url = format!("{}/mcp", served.base);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/authorization/client.py");
    let mut made = Vec::new();
    for mode in ["legacy", "auto"] {
        let title = format!("From Python ({mode})");
        made.push(title.clone());
        let note = json!({ "title": title, "text": "-" });
        let mut command = Command::new(test_support::PYTHON_MCP.path());
        command.arg(script).args([mode, &url, &provider.issuer, "writer", "writer-secret"]);
        command.args(["create_note", &note.to_string(), "list_notes", "{}"]);
        let (succeeded, lines) = run(&mut command);
        assert!(succeeded, "{mode}: {lines:?}");
        let created = &answer(&lines, "create_note")["result"];
        assert_eq!(created["structured_content"]["title"], title.as_str(), "{mode}: {created}");
        assert_eq!(titles(&answer(&lines, "list_notes")["result"]["structured_content"]), made, "{mode}");
    }
}
