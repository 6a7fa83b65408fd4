//! `valem serve --api-key`: every route but `GET /health` refuses a request without the key
//! (401, `{"error": "Missing or invalid API key"}`, `WWW-Authenticate: Bearer`), accepts it with
//! the key; remote mode sends it; and the key shows in nothing either process prints or answers.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::served::Served;

const KEY: &str = "Kx9-remote-api-key-7f3a";

/// One HTTP/1.1 exchange: the status, and the head and body as text.
fn exchange(url: &str, method: &str, path: &str, authorization: Option<&str>, body: Option<&Value>) -> (u16, String) {
    let authority = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(authority).unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(value) = authorization {
        request.push_str(&format!("Authorization: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, answer)
}

fn routes() -> Vec<(&'static str, &'static str, Option<Value>)> {
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } });
    let spec = json!({ "id": "keyed", "schema": { "type": "object", "properties": { "a": { "type": "number" } } } });
    vec![
        ("POST", "/mcp", Some(initialize)),
        ("GET", "/mcp", None),
        ("DELETE", "/mcp", None),
        ("GET", "/openapi.json", None),
        ("GET", "/models", None),
        ("POST", "/models", Some(spec)),
        ("GET", "/models/keyed/state", None),
        ("POST", "/models/keyed/mutations", Some(json!({ "$.a": 1 }))),
        ("POST", "/authoring/eval", Some(json!({ "expr": "1" }))),
        ("GET", "/no/such/route", None),
    ]
}

#[test]
fn every_route_but_health_needs_the_key_and_the_key_is_never_shown() {
    // By flag here, by VALEM_API_KEY in the test below.
    let served = Served::start(crate::valem(), &["--api-key", KEY]);
    let mut seen = String::new();
    let (status, answer) = exchange(&served.url, "GET", "/health", None, None);
    assert_eq!(status, 200, "{answer}");
    for (method, path, body) in routes() {
        let wrong = format!("Bearer {KEY}x");
        for refused in [None, Some("Bearer"), Some(wrong.as_str()), Some(KEY), Some("Basic a2V5")] {
            let (status, answer) = exchange(&served.url, method, path, refused, body.as_ref());
            assert_eq!(status, 401, "{method} {path} with {refused:?}: {answer}");
            assert!(answer.to_ascii_lowercase().contains("www-authenticate: bearer\r\n"), "{answer}");
            let (_, body) = answer.split_once("\r\n\r\n").unwrap();
            assert_eq!(serde_json::from_str::<Value>(body).unwrap(), json!({ "error": "Missing or invalid API key" }));
            seen.push_str(&answer);
        }
        let right = format!("Bearer {KEY}");
        let (status, answer) = exchange(&served.url, method, path, Some(&right), body.as_ref());
        assert_ne!(status, 401, "{method} {path} with the key: {answer}");
        seen.push_str(&answer);
    }

    // Remote mode with the key works, given by flag or by VALEM_API_KEY; with a wrong one a
    // model tool fails naming the URL.
    let script = [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-06-18", "capabilities": {} } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "get_state", "arguments": { "id": "keyed" } } }),
        json!({ "jsonrpc": "2.0", "id": 3, "method": "resources/subscribe", "params": { "uri": "valem://state/keyed" } }),
        json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": { "name": "mutate", "arguments": { "id": "keyed", "mutations": { "$.a": 2 } } } }),
    ];
    let wrong_key = format!("{KEY}-wrong");
    for (flag, env, works) in
        [(Some(KEY), None, true), (None, Some(KEY), true), (Some(wrong_key.as_str()), None, false)]
    {
        let mut command = Command::new(crate::valem());
        command.args(["mcp", "--url", &served.url]).env_remove("VALEM_API_KEY");
        if let Some(key) = flag {
            command.args(["--api-key", key]);
        }
        if let Some(key) = env {
            command.env("VALEM_API_KEY", key);
        }
        let (stdout, stderr) = run(command, &script);
        let answer = stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|m| m["id"] == 2)
            .unwrap_or_else(|| panic!("no answer to get_state: {stdout} {stderr}"));
        let result = &answer["result"];
        assert_eq!(result["isError"], json!(!works), "{answer}");
        if !works {
            assert_eq!(result["structuredContent"]["reason"], "unauthorized", "{answer}");
            assert_eq!(result["structuredContent"]["url"], format!("{}/models/keyed/state", served.url));
        }
        seen.push_str(&stdout);
        seen.push_str(&stderr);
    }
    // A key given with no URL, or one no header can carry, is refused without being quoted.
    for args in [&["mcp", "--api-key", KEY][..], &["serve", "--api-key", "Kx9 remote api key"]] {
        let out = Command::new(crate::valem()).args(args).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        seen.push_str(&String::from_utf8_lossy(&out.stdout));
        seen.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    assert!(!seen.contains("Kx9 remote api key"));
    seen.push_str(&served.printed());
    assert!(!seen.contains(KEY), "the key was shown:\n{seen}");
}

#[test]
fn the_key_may_come_from_the_environment() {
    let served = Served::start_with(crate::valem(), &[], &[("VALEM_API_KEY", KEY)]);
    assert_eq!(exchange(&served.url, "GET", "/models", None, None).0, 401);
    assert_eq!(exchange(&served.url, "GET", "/models", Some(&format!("Bearer {KEY}")), None).0, 200);
    assert!(!served.printed().contains(KEY));
}

/// Runs remote mode on a script of messages (stdin closed after it, the process then exits).
fn run(mut command: Command, script: &[Value]) -> (String, String) {
    let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for message in script {
        writeln!(stdin, "{message}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}
