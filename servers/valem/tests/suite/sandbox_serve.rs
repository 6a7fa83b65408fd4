//! `valem serve --sandbox`, the real binary: no `/sandbox` without the flag; with it the pages
//! and the pairing routes outside `--api-key`, which still guards everything else, and the
//! startup line naming the sandbox; and, over REST and `/mcp`, a session's models reachable with
//! that session's `X-Session-Token` only (401 without one, 404 with another session's), its
//! listing holding its own models only, whatever store keeps them.

use std::path::Path;

use hyper::Method;
use hyper::header::{HeaderName, HeaderValue};
use serde_json::{Value, json};
use tokio::runtime::Runtime;
use tooltable_transports::forward::{Client, Options};

use crate::support::sandbox_host::Developer;
use crate::support::scratch::Scratch;
use crate::support::served::Served;

const KEY: &str = "sandbox-serve-key-7f3a";

fn valem() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_valem"))
}

/// Requests to one server, with the API key when given, each with a session's token or none.
struct Caller<'r> {
    url: String,
    client: Client,
    runtime: &'r Runtime,
}

impl<'r> Caller<'r> {
    fn new(url: &str, key: Option<&str>, runtime: &'r Runtime) -> Caller<'r> {
        let options = key.map_or_else(Options::default, |key| Options::default().bearer_token(key));
        Caller { url: url.to_owned(), client: Client::new(url, &options).unwrap(), runtime }
    }

    fn send(&self, method: Method, path: &str, body: Option<&Value>, headers: &[(&str, &str)]) -> (u16, String) {
        let headers: Vec<(HeaderName, HeaderValue)> =
            headers.iter().map(|(k, v)| (HeaderName::from_bytes(k.as_bytes()).unwrap(), v.parse().unwrap())).collect();
        let answer = self.runtime.block_on(self.client.send_with(&method, path, body, &headers)).unwrap();
        (answer.status, String::from_utf8(answer.body.to_vec()).unwrap())
    }

    /// A REST request: the status and the JSON answer.
    fn rest(&self, method: Method, path: &str, body: Option<&Value>, token: Option<&str>) -> (u16, Value) {
        let headers: Vec<(&str, &str)> = token.map(|t| ("x-session-token", t)).into_iter().collect();
        let (status, text) = self.send(method, path, body, &headers);
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// A `tools/call` over `/mcp` (revision 2026-07-28, which needs no session): whether it is
    /// a tool error, and its JSON.
    fn mcp(&self, tool: &str, arguments: Value, token: Option<&str>) -> (bool, Value) {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "1" },
        });
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": { "name": tool, "arguments": arguments, "_meta": meta } });
        let mut headers = vec![
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", tool),
        ];
        headers.extend(token.map(|t| ("x-session-token", t)));
        let (status, text) = self.send(Method::POST, "/mcp", Some(&body), &headers);
        assert_eq!(status, 200, "{text}");
        // A JSON body, or an event stream whose last data line is the response.
        let json = text.lines().filter_map(|l| l.strip_prefix("data:")).next_back().unwrap_or(&text).trim().to_owned();
        let answer: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {text}"));
        let result = &answer["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {answer}"));
        (result["isError"] == true, serde_json::from_str(text).unwrap())
    }

    /// Pairs a session as an agent and its developer do: mint, approve, poll. Its token and
    /// namespace.
    fn pair(&self) -> (String, String) {
        let (status, minted) = self.rest(Method::POST, "/sandbox/pair", None, None);
        assert_eq!(status, 200, "{minted}");
        let (status, approved) =
            Developer::at(&self.url, self.runtime.handle()).approve(minted["userCode"].as_str().unwrap());
        assert_eq!(status, 200, "{approved}");
        let poll = json!({ "pairCode": minted["pairCode"], "deviceSecret": minted["deviceSecret"] });
        let (status, session) = self.rest(Method::POST, "/sandbox/pair/token", Some(&poll), None);
        assert_eq!(status, 200, "{session}");
        (session["sessionToken"].as_str().unwrap().to_owned(), session["namespaceId"].as_str().unwrap().to_owned())
    }
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap()
}

#[test]
fn without_the_flag_there_is_no_sandbox_and_with_it_the_startup_line_names_it() {
    let runtime = runtime();
    let plain = Served::start(valem(), &[]);
    let (status, _) = Caller::new(&plain.url, None, &runtime).send(Method::GET, "/sandbox/verify", None, &[]);
    assert_eq!(status, 404, "no sandbox route without --sandbox");
    assert!(!plain.printed().contains("sandbox"), "{}", plain.printed());

    let served = Served::start(valem(), &["--sandbox"]);
    let (status, page) = Caller::new(&served.url, None, &runtime).send(Method::GET, "/sandbox/verify", None, &[]);
    assert!(status == 200 && page.contains("<html"), "{status}: {page}");
    let printed = served.printed();
    assert!(printed.contains("; sandbox at /sandbox: agents pair with `mcp --url URL --browser`"), "{printed}");
}

#[test]
fn the_pages_and_the_pairing_routes_need_no_api_key_and_everything_else_does() {
    let runtime = runtime();
    let served = Served::start(valem(), &["--sandbox", "--api-key", KEY]);
    let keyless = Caller::new(&served.url, None, &runtime);
    assert_eq!(keyless.send(Method::GET, "/sandbox/verify", None, &[]).0, 200);
    assert_eq!(keyless.send(Method::GET, "/sandbox/assets/sandbox.js", None, &[]).0, 200);
    let (status, minted) = keyless.rest(Method::POST, "/sandbox/pair", None, None);
    assert_eq!(status, 200, "{minted}");
    let (token, _) = keyless.pair();
    assert_eq!(keyless.send(Method::GET, "/sandbox/api/models", None, &[("x-session-token", &token)]).0, 200);
    for (method, path) in [(Method::GET, "/models"), (Method::POST, "/mcp"), (Method::GET, "/openapi.json")] {
        assert_eq!(keyless.rest(method.clone(), path, None, None).0, 401, "{method} {path} without the key");
        let (status, refused) = keyless.rest(method.clone(), path, None, Some(&token));
        assert_eq!((status, refused["error"].as_str()), (401, Some("Missing or invalid API key")), "{method} {path}");
    }
    assert_eq!(Caller::new(&served.url, Some(KEY), &runtime).rest(Method::GET, "/models", None, None).0, 200);
}

#[test]
fn a_sessions_models_are_reached_with_its_token_only_over_rest_and_mcp() {
    let runtime = runtime();
    let data = Scratch::new("sandbox-serve");
    let dir = data.path().to_str().unwrap();
    let served = Served::start(valem(), &["--sandbox", "--api-key", KEY, "--data", dir]);
    let agent = Caller::new(&served.url, Some(KEY), &runtime);
    let ((token, namespace), (other, _)) = (agent.pair(), agent.pair());
    let order = format!("{namespace}__order");
    let spec = json!({ "id": order, "schema": { "type": "object", "properties": { "qty": { "type": "integer" } } } });
    let headers = [(HeaderName::from_static("x-session-token"), HeaderValue::from_str(&token).unwrap())];
    let created = runtime.block_on(agent.client.send_with(&Method::POST, "/models", Some(&spec), &headers)).unwrap();
    let location = created.headers.get("location").and_then(|v| v.to_str().ok());
    assert_eq!((created.status, location), (201, Some(&*format!("/models/{order}"))), "a created model's address");
    agent.rest(Method::POST, "/models", Some(&json!({ "id": "shared", "schema": {} })), None);

    let state = format!("/models/{order}/state");
    let (status, refused) = agent.rest(Method::GET, &state, None, None);
    assert_eq!((status, refused["error"].as_str()), (401, Some("Session required")), "{refused}");
    let (status, hidden) = agent.rest(Method::GET, &state, None, Some(&other));
    assert_eq!((status, hidden["error"].as_str()), (404, Some("Model not found")), "{hidden}");
    assert_eq!(agent.rest(Method::GET, &state, None, Some(&token)), (200, json!({})));
    let (status, unknown) = agent.rest(Method::GET, &state, None, Some("no-such-token"));
    assert_eq!(status, 401, "{unknown}");
    assert_eq!(agent.rest(Method::GET, "/models/shared/state", None, Some(&token)).0, 404, "a session's own only");

    assert_eq!(agent.rest(Method::GET, "/models", None, Some(&token)), (200, json!([order])));
    assert_eq!(agent.rest(Method::GET, "/models", None, Some(&other)), (200, json!([])));
    assert_eq!(agent.rest(Method::GET, "/models", None, None), (200, json!(["shared"])), "no session's models");
    let (status, outside) =
        agent.rest(Method::POST, "/models", Some(&json!({ "id": "mine", "schema": {} })), Some(&token));
    assert_eq!(status, 422, "a session names its models in its namespace: {outside}");

    assert_eq!(agent.mcp("list_models", json!({}), Some(&token)), (false, json!([order])));
    assert_eq!(agent.mcp("get_state", json!({ "id": order }), Some(&token)), (false, json!({})));
    let (failed, hidden) = agent.mcp("get_state", json!({ "id": order }), Some(&other));
    assert_eq!((failed, hidden["error"].as_str()), (true, Some("Model not found")), "{hidden}");
    let (failed, refused) = agent.mcp("mutate", json!({ "id": order, "mutations": { "$.qty": 1 } }), None);
    assert_eq!((failed, refused["error"].as_str()), (true, Some("Session required")), "{refused}");
    let (status, deleted) = agent.rest(Method::DELETE, &format!("/models/{order}"), None, Some(&other));
    assert_eq!(status, 404, "another session deletes nothing: {deleted}");
    assert_eq!(agent.rest(Method::DELETE, &format!("/models/{order}"), None, Some(&token)).0, 200);
}
