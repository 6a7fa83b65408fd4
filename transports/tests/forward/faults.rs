//! Remotes that misbehave, played by a tiny server in the test: each gives a clear failure, in
//! time, and the bearer token shows in none of them. The same server shows what a hook adds to
//! the forwarded calls.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tooltable::tool::Output;
use tooltable::{Error, ErrorKind, Server};
use tooltable_transports::forward::{ForwardError, Hook, Options, Outgoing, Refreshed, Remote};

const TOKEN: &str = "s3cret-t0ken";
/// Bounds every test, so a hang fails it instead of stalling the run.
const GUARD: Duration = Duration::from_secs(20);

/// What the fake answers one request with.
#[derive(Clone)]
enum Behaviour {
    /// These bytes, then the connection is closed.
    Raw(Vec<u8>),
    /// A 200 JSON answer.
    Json(Value),
    /// Nothing, for this long.
    Sleep(Duration),
    /// A 200 whose body has this many bytes (written until the client stops reading).
    Huge(usize),
}

/// A server answering each request by its path; the heads of the requests it got are kept.
struct Fake {
    url: String,
    routes: Arc<Mutex<Vec<(String, Behaviour)>>>,
    heads: Arc<Mutex<Vec<String>>>,
}

impl Fake {
    async fn start(routes: Vec<(&str, Behaviour)>) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let routes = Arc::new(Mutex::new(routes.into_iter().map(|(p, b)| (p.to_owned(), b)).collect()));
        let heads = Arc::new(Mutex::new(Vec::new()));
        let (r, h) = (Arc::clone(&routes), Arc::clone(&heads));
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(answer(stream, Arc::clone(&r), Arc::clone(&h)));
            }
        });
        Fake { url, routes, heads }
    }

    fn set(&self, path: &str, behaviour: Behaviour) {
        let mut routes = self.routes.lock().unwrap();
        routes.retain(|(p, _)| p != path);
        routes.push((path.to_owned(), behaviour));
    }
}

async fn answer(mut stream: TcpStream, routes: Arc<Mutex<Vec<(String, Behaviour)>>>, heads: Arc<Mutex<Vec<String>>>) {
    let mut request = Vec::new();
    let mut buf = [0u8; 4096];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&request).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or_default().split('?').next().unwrap_or_default().to_owned();
    heads.lock().unwrap().push(head);
    let behaviour = routes.lock().unwrap().iter().find(|(p, _)| *p == path).map(|(_, b)| b.clone());
    let bytes = match behaviour {
        None => response("404 Not Found", "application/json", br#"{"error":"no route"}"#),
        Some(Behaviour::Raw(bytes)) => bytes,
        Some(Behaviour::Json(value)) => response("200 OK", "application/json", value.to_string().as_bytes()),
        Some(Behaviour::Sleep(d)) => {
            tokio::time::sleep(d).await;
            return;
        }
        Some(Behaviour::Huge(n)) => {
            let head = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {n}\r\n\r\n[");
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let chunk = vec![b'1'; 64 * 1024];
            for _ in 0..n / chunk.len() {
                if stream.write_all(&chunk).await.is_err() {
                    return;
                }
            }
            return;
        }
    };
    let _ = stream.write_all(&bytes).await;
    let _ = stream.shutdown().await;
}

fn response(status: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

/// A document with one GET operation per name, at `/NAME`.
fn document(names: &[&str]) -> Value {
    let paths: serde_json::Map<String, Value> = names
        .iter()
        .map(|n| {
            (format!("/{n}"), json!({ "get": { "operationId": n, "summary": format!("Calls {n}."), "responses": {} } }))
        })
        .collect();
    json!({ "openapi": "3.1.0", "info": { "title": "fake", "version": "1" }, "paths": paths })
}

async fn forwarding(fake: &Fake, options: Options) -> (Server<()>, Remote) {
    let remote = Remote::connect(&fake.url, options.bearer_token(TOKEN)).await.unwrap_or_else(|e| panic!("{e}"));
    let server = Server::builder(()).info("forwarder", "0.0.0").build().unwrap();
    remote.install(&server).unwrap();
    (server, remote)
}

async fn call(server: &Server<()>, name: &str) -> Error {
    let failure = tokio::time::timeout(GUARD, server.call(name, json!({}))).await.expect("no hang").unwrap_err();
    assert!(!failure.body.to_string().contains(TOKEN), "the token leaked: {}", failure.body);
    failure
}

#[tokio::test]
async fn each_kind_of_bad_answer_is_a_clear_failure() {
    let names = ["slow", "garbage", "html", "huge", "empty"];
    let fake = Fake::start(vec![
        ("/openapi.json", Behaviour::Json(document(&names))),
        ("/slow", Behaviour::Sleep(Duration::from_secs(60))),
        ("/garbage", Behaviour::Raw(b"\x00\x01 this is no HTTP\r\n\r\n".to_vec())),
        (
            "/html",
            Behaviour::Raw(response("500 Internal Server Error", "text/html", b"<html><body>Oops</body></html>")),
        ),
        ("/huge", Behaviour::Huge(50 * 1024 * 1024)),
        ("/empty", Behaviour::Raw(response("200 OK", "application/json", b""))),
    ])
    .await;
    let options = Options::default().timeout(Duration::from_millis(500));
    let (server, _remote) = forwarding(&fake, options).await;
    let url = |path: &str| format!("{}{path}", fake.url);

    let slow = call(&server, "slow").await;
    assert_eq!(slow.kind, ErrorKind::Internal);
    assert_eq!((slow.body["reason"].clone(), slow.body["url"].clone()), (json!("timeout"), json!(url("/slow"))));
    assert_eq!(slow.body["error"], format!("{} did not answer before the deadline: 500ms", url("/slow")));

    let garbage = call(&server, "garbage").await;
    assert_eq!(garbage.body["reason"], "unreachable", "{}", garbage.body);
    assert!(garbage.body["error"].as_str().unwrap().starts_with(&url("/garbage")));

    let html = call(&server, "html").await;
    assert_eq!(
        (html.kind, html.body["reason"].clone(), html.body["status"].clone()),
        (ErrorKind::Internal, json!("not_json"), json!(500))
    );

    let huge = call(&server, "huge").await;
    assert_eq!((huge.kind, huge.body["reason"].clone()), (ErrorKind::TooLarge, json!("too_large")));
    assert_eq!(
        huge.body["error"],
        format!("{} answered with a body larger than the bound: more than 16777216 bytes", url("/huge"))
    );

    let empty = call(&server, "empty").await;
    assert_eq!(empty.body["reason"], "not_json", "an empty body is no result");

    let heads = fake.heads.lock().unwrap();
    assert!(heads.iter().all(|h| h.contains(&format!("authorization: Bearer {TOKEN}"))), "{heads:?}");
}

#[tokio::test]
async fn a_remote_that_is_not_there_or_serves_no_document_is_refused_at_connect() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    match Remote::connect(&closed, Options::default().bearer_token(TOKEN)).await {
        Err(ForwardError::Fetch(f)) => assert_eq!(f.url, format!("{closed}/openapi.json")),
        other => panic!("{other:?}"),
    }

    let fake =
        Fake::start(vec![("/v1/openapi.json", Behaviour::Json(json!({ "openapi": "3.0.0", "paths": {} })))]).await;
    let wrong = Remote::connect(&format!("{}/v1", fake.url), Options::default()).await.unwrap_err();
    assert_eq!(
        wrong.to_string(),
        format!(
            "{}/v1/openapi.json is no usable OpenAPI 3.1 document: its version is 3.0.0; only OpenAPI 3.1 is read",
            fake.url
        )
    );
    let absent = Remote::connect(&fake.url, Options::default()).await.unwrap_err();
    assert_eq!(absent, ForwardError::Status { url: format!("{}/openapi.json", fake.url), status: 404 });
    assert!(!format!("{absent} {wrong:?}").contains(TOKEN));
}

#[tokio::test]
async fn a_refresh_follows_the_document() {
    let fake = Fake::start(vec![
        ("/openapi.json", Behaviour::Json(document(&["kept", "dropped"]))),
        ("/kept", Behaviour::Json(json!({ "n": 1 }))),
        ("/added", Behaviour::Json(json!({ "n": 2 }))),
    ])
    .await;
    let (server, mut remote) = forwarding(&fake, Options::default()).await;
    assert_eq!(server.call("kept", json!({})).await, Ok(json!({ "n": 1 })));

    let mut changed = document(&["kept", "added"]);
    changed["paths"]["/kept"]["get"]["summary"] = json!("Calls kept, described anew.");
    fake.set("/openapi.json", Behaviour::Json(changed));
    let refreshed = remote.refresh(&server).await.unwrap();
    assert_eq!(
        refreshed,
        Refreshed { added: vec!["added".into()], changed: vec!["kept".into()], removed: vec!["dropped".into()] }
    );
    let names: Vec<String> = server.table().descriptors().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["kept", "added"]);
    assert_eq!(server.table().get("kept").unwrap().descriptor.description, "Calls kept, described anew.");
    assert_eq!(server.call("added", json!({})).await, Ok(json!({ "n": 2 })));

    assert_eq!(remote.refresh(&server).await.unwrap(), Refreshed::default(), "nothing changed");
    fake.set("/openapi.json", Behaviour::Raw(response("200 OK", "application/json", b"{not json")));
    assert!(matches!(remote.refresh(&server).await, Err(ForwardError::Document { .. })));
    assert_eq!(server.table().descriptors().len(), 2, "a failed refresh changes nothing");
}

#[tokio::test]
async fn descriptors_served_at_a_path_are_laid_over_the_document() {
    let own = json!([{ "name": "kept", "title": "Kept", "description": "Keeps.", "inputSchema": { "type": "object", "properties": {}, "additionalProperties": false }, "annotations": { "idempotentHint": true } }]);
    let fake = Fake::start(vec![
        ("/openapi.json", Behaviour::Json(document(&["kept"]))),
        ("/tools.json", Behaviour::Json(own.clone())),
        ("/bad-tools.json", Behaviour::Json(json!({ "tools": [] }))),
    ])
    .await;
    let (_server, remote) = forwarding(&fake, Options::default().descriptors_path("/tools.json")).await;
    assert_eq!(remote.descriptors().map(|d| d.to_mcp()).collect::<Vec<_>>(), own.as_array().unwrap().clone());

    let refused = Remote::connect(&fake.url, Options::default().descriptors_path("/bad-tools.json")).await.unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!(
            "{}/bad-tools.json cannot be laid over the tools: the descriptors are not a JSON array of tools",
            fake.url
        )
    );
}

#[tokio::test]
async fn a_path_value_cannot_move_the_request_to_another_path() {
    let mut doc = document(&[]);
    doc["paths"]["/items/{id}"] = json!({ "get": {
        "operationId": "item",
        "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string" } }],
    } });
    let fake = Fake::start(vec![
        ("/openapi.json", Behaviour::Json(doc)),
        ("/items/%2E%2E", Behaviour::Json(json!({ "item": ".." }))),
        ("/items/a%2Fb%3Fc", Behaviour::Json(json!({ "item": "a/b?c" }))),
    ])
    .await;
    let (server, _remote) = forwarding(&fake, Options::default()).await;
    assert_eq!(server.call("item", json!({ "id": ".." })).await, Ok(json!({ "item": ".." })));
    assert_eq!(server.call("item", json!({ "id": "a/b?c" })).await, Ok(json!({ "item": "a/b?c" })));
}

/// Adds a header to every call, marks the arguments and the answers, and answers `gated`
/// itself.
#[derive(Debug)]
struct Marking;

impl Hook for Marking {
    fn outgoing(&self, tool: &str, mut args: Value) -> Result<Outgoing, Error> {
        if tool == "gated" {
            return Err(Error::new(ErrorKind::Forbidden, "not yet"));
        }
        args["marked"] = json!(true);
        let header =
            (hyper::header::HeaderName::from_static("x-session-token"), hyper::header::HeaderValue::from_static("t1"));
        Ok(Outgoing { args, headers: vec![header] })
    }

    fn incoming(&self, tool: &str, answer: Result<Output, Error>) -> Result<Output, Error> {
        answer.map(|output| match output {
            Output::Json(value) => Output::Json(json!({ "tool": tool, "answer": value })),
            other => other,
        })
    }
}

#[tokio::test]
async fn a_hook_adds_headers_and_rewrites_what_goes_and_comes_back() {
    let mut doc = document(&["echo", "gated"]);
    doc["paths"]["/echo"]["get"]["parameters"] =
        json!([{ "name": "marked", "in": "query", "required": false, "schema": { "type": "boolean" } }]);
    let fake = Fake::start(vec![
        ("/openapi.json", Behaviour::Json(doc)),
        ("/echo", Behaviour::Json(json!({ "n": 1 }))),
        ("/gated", Behaviour::Json(json!({ "reached": true }))),
    ])
    .await;
    let (server, _remote) = forwarding(&fake, Options::default().hook(std::sync::Arc::new(Marking))).await;
    let answer = tokio::time::timeout(GUARD, server.call("echo", json!({}))).await.unwrap();
    assert_eq!(answer, Ok(json!({ "tool": "echo", "answer": { "n": 1 } })));
    let gated = tokio::time::timeout(GUARD, server.call("gated", json!({}))).await.unwrap().unwrap_err();
    assert_eq!((gated.kind, gated.body), (ErrorKind::Forbidden, json!({ "error": "not yet" })));
    let heads = fake.heads.lock().unwrap();
    let echo: Vec<&String> = heads.iter().filter(|h| h.starts_with("GET /echo")).collect();
    assert_eq!(echo.len(), 1, "{heads:?}");
    assert!(echo[0].contains("x-session-token: t1") && echo[0].contains("marked=true"), "{}", echo[0]);
    assert!(!heads.iter().any(|h| h.starts_with("GET /gated")), "the hook answered instead: {heads:?}");
}
