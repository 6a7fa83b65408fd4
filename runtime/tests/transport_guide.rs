//! docs/guide/writing-a-transport.md, run: the line transport it builds serves a server here,
//! and every Rust excerpt of the page is in this file word for word.

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tooltable::Principal;
use tooltable::context::Transport;
use tooltable::transport::{Destination, Outbox, Outgoing, RequestContext, Session};
use tooltable::{Cx, Error, Server, table, tool};

/// Writes each message for the client as one line. The two signals about a request's stream
/// (close it now; the client cancelled it) mean nothing to a pipe, which has one stream.
struct LineOutbox<W>(Mutex<W>);

impl<W: Write + Send + 'static> Outbox for LineOutbox<W> {
    fn send(&self, outgoing: Outgoing) {
        let Outgoing::Message { json, .. } = outgoing else { return };
        let mut out = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // A client that has gone cannot be told; the end of its input ends the session.
        let _ = writeln!(out, "{json}").and_then(|()| out.flush());
    }
}

/// Serves `server` over lines of JSON-RPC: each line of `input` is one message, each message
/// out is one line of `output`. Calls that wait run on `runtime`; at the end of input they get
/// `grace` to finish.
fn serve_lines<S: Send + Sync + 'static>(
    server: &Server<S>,
    input: impl BufRead,
    output: impl Write + Send + 'static,
    runtime: &tokio::runtime::Handle,
    grace: Duration,
) -> std::io::Result<()> {
    let session = Session::new(server, LineOutbox(Mutex::new(output)));
    let context = RequestContext::new(Transport::Custom("lines"));
    {
        // A call that has to wait becomes a task of the current runtime.
        let _calls_run_here = runtime.enter();
        for line in input.lines() {
            let line = line?;
            if !line.trim().is_empty() {
                session.handle_bytes(line.as_bytes(), &context);
            }
        }
    }
    runtime.block_on(session.drain(grace));
    Ok(())
}

/// Says who called, over what.
#[tool(read_only)]
async fn whoami(cx: &Cx<()>) -> Result<Value, Error> {
    let caller = cx.principal().map(|p| p.subject.clone());
    Ok(json!({ "transport": format!("{:?}", cx.transport()), "caller": caller, "revision": cx.protocol_version() }))
}

/// Waits a moment before it answers.
#[tool(read_only)]
async fn slow() -> Result<String, Error> {
    tokio::time::sleep(Duration::from_millis(20)).await;
    Ok("done".into())
}

/// The messages of a client: the handshake, then a call of each tool.
const CLIENT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}
"#;

/// A writer that keeps what is written, for the test to read.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().write(bytes)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn server() -> Server<()> {
    Server::builder(()).info("lines-test", "1.0.0").tools(table![whoami, slow]).build().unwrap()
}

#[test]
fn the_line_transport_serves_a_session() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let output = Shared::default();
    serve_lines(&server(), CLIENT.as_bytes(), output.clone(), runtime.handle(), Duration::from_secs(5)).unwrap();
    let text = String::from_utf8(output.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let answer = |id: i64| lines.iter().find(|m| m["id"] == id && m.get("method").is_none()).unwrap();
    assert_eq!(answer(0)["result"]["serverInfo"]["name"], "lines-test");
    let who = &answer(1)["result"]["structuredContent"];
    assert_eq!(who, &json!({ "transport": "Custom(\"lines\")", "caller": null, "revision": "2025-11-25" }));
    assert_eq!(answer(2)["result"]["content"][0]["text"], "\"done\"", "a call that waited is answered before the end");
}

/// Where an HTTP-like transport puts a message: on the stream of the request it belongs to.
fn stream_of(destination: &Destination) -> String {
    match destination {
        Destination::Response(id) | Destination::During(id) => format!("the stream of request {id}"),
        Destination::Session => "the session's own stream".to_owned(),
    }
}

#[tokio::test]
async fn a_transport_that_authenticates_passes_the_principal_with_each_message() {
    let (outbox, mut out) = tokio::sync::mpsc::unbounded_channel();
    let session = Session::new(&server(), outbox);
    let alice = RequestContext::new(Transport::Custom("authenticated")).with_principal(Some(Principal::new("alice")));
    session.handle_bytes(CLIENT.lines().next().unwrap().as_bytes(), &alice);
    session.handle_bytes(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}"#, &alice);
    assert_eq!(session.opened_by().map(|p| p.subject.as_str()), Some("alice"), "the session knows who opened it");
    let mut answers = Vec::new();
    while answers.len() < 2 {
        match out.recv().await.expect("the session answers") {
            Outgoing::Message { json, destination } => answers.push((json, stream_of(&destination))),
            Outgoing::CloseStream(_) | Outgoing::Cancelled(_) => {}
        }
    }
    let (json, stream) = &answers[1];
    let call: Value = serde_json::from_str(json).unwrap();
    assert_eq!(call["result"]["structuredContent"]["caller"], "alice");
    assert_eq!(stream, "the stream of request 1");
}

#[test]
fn every_rust_excerpt_of_the_guide_is_in_this_test_word_for_word() {
    let page = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/guide/writing-a-transport.md");
    let page = std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{page}: {e}"));
    let this = include_str!("transport_guide.rs");
    let mut excerpts = 0;
    let mut block: Option<String> = None;
    for line in page.lines() {
        match (&mut block, line.strip_prefix("```")) {
            (None, Some("rust")) => block = Some(String::new()),
            (None, Some(_)) => block = Some("not rust".to_owned()),
            (Some(text), Some(_)) => {
                if !text.starts_with("not rust") {
                    excerpts += 1;
                    assert!(this.contains(text.as_str()), "this excerpt of the guide is not in the test:\n{text}");
                }
                block = None;
            }
            (Some(text), None) => {
                if !text.starts_with("not rust") {
                    text.push_str(line);
                    text.push('\n');
                }
            }
            (None, None) => {}
        }
    }
    assert!(block.is_none(), "a ``` block of the guide is not closed");
    assert!(excerpts >= 3, "the guide shows the transport's code ({excerpts} excerpts)");
}
