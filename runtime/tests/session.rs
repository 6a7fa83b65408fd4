//! The transport-independent session: messages in through `handle_bytes`, messages out on a channel.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use support::{CONTEXT, Sent};
use tooltable::context::{UrlElicitation, UrlElicitationRequired};
use tooltable::prompts::{Prompt, PromptResult};
use tooltable::transport::{Destination, Outgoing, Session};
use tooltable::{Cx, Error, Server, table, tool};

mod support;

/// Does nothing.
#[tool]
async fn first() -> Result<Value, Error> {
    Ok(json!({}))
}
/// Does nothing.
#[tool]
async fn second() -> Result<Value, Error> {
    Ok(json!({}))
}
/// Does nothing.
#[tool]
async fn third() -> Result<Value, Error> {
    Ok(json!({}))
}

#[derive(Deserialize, JsonSchema)]
struct Link {
    url: String,
}

/// Sends the user to a page and reports completion when they are back.
#[tool]
async fn visit(cx: &Cx<()>, args: Link) -> Result<Value, Error> {
    let answer =
        cx.elicit_url("Please sign in", &args.url, "el-1").await.map_err(|e| Error::bad_request(e.to_string()))?;
    cx.elicitation_complete("el-1");
    Ok(answer)
}

/// Asks the user a question in form mode.
#[tool]
async fn ask(cx: &Cx<()>) -> Result<Value, Error> {
    let schema = json!({ "type": "object", "properties": { "name": { "type": "string" } } });
    cx.elicit_form("Your name?", schema).await.map_err(|e| Error::bad_request(e.to_string()))
}

/// Asks the client's model, offering it a tool.
#[tool]
async fn sample_with_tools(cx: &Cx<()>) -> Result<Value, Error> {
    let params =
        json!({ "messages": [], "maxTokens": 10, "tools": [{ "name": "t", "inputSchema": { "type": "object" } }] });
    cx.create_message(params).await.map_err(|e| Error::bad_request(e.to_string()))
}

/// Needs the user to authorize first.
#[tool]
async fn needs_authorization() -> Result<Value, UrlElicitationRequired> {
    Err(UrlElicitationRequired {
        message: "Authorization is required.".into(),
        elicitations: vec![UrlElicitation {
            elicitation_id: "el-9".into(),
            url: "https://example.com/connect".into(),
            message: "Sign in to Example".into(),
        }],
    })
}

fn server() -> Server<()> {
    Server::builder(())
        .tools(table![first, second, third, visit, ask, sample_with_tools, needs_authorization])
        .page_size(2)
        .build()
        .unwrap()
}

type Peer = support::Peer<()>;

fn peer(capabilities: Value) -> Peer {
    Peer::initialized(&server(), capabilities)
}

#[tokio::test]
async fn tools_list_pages_with_an_opaque_cursor() {
    let mut p = peer(json!({}));
    let mut names = Vec::new();
    let mut cursor = Value::Null;
    for id in 1.. {
        p.send(json!({ "jsonrpc": "2.0", "id": id, "method": "tools/list", "params": { "cursor": cursor } }));
        let r = p.response(id).await;
        names.extend(r["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].clone()));
        cursor = r["result"].get("nextCursor").cloned().unwrap_or(Value::Null);
        if cursor.is_null() {
            break;
        }
        assert!(!cursor.as_str().unwrap().chars().all(|c| c.is_ascii_digit()), "the cursor is not a bare offset");
    }
    let expected = ["first", "second", "third", "visit", "ask", "sample_with_tools", "needs_authorization"];
    assert_eq!(names, expected.map(|n| json!(n)));
}

#[tokio::test]
async fn url_elicitation_needs_the_url_capability() {
    let mut p = peer(json!({ "elicitation": { "form": {} } }));
    p.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "visit", "arguments": { "url": "https://example.test/login" } } }));
    let r = p.response(1).await;
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["structuredContent"]["error"].as_str().unwrap().contains("elicitation.url"));
}

#[tokio::test]
async fn url_elicitation_then_completion_within_the_call() {
    let mut p = peer(json!({ "elicitation": { "url": {} } }));
    p.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "visit", "arguments": { "url": "https://example.test/login" } } }));
    let (request, route) = loop {
        let (msg, route) = p.next().await;
        if msg["method"] == "elicitation/create" {
            break (msg, route);
        }
    };
    assert_eq!(
        route,
        Sent::To(Destination::During(tooltable::transport::jsonrpc::RequestId::Number(1))),
        "routed with the call that asked"
    );
    assert_eq!(request["params"]["mode"], "url");
    assert_eq!(request["params"]["url"], "https://example.test/login");
    assert_eq!(request["params"]["elicitationId"], "el-1");
    p.send(json!({ "jsonrpc": "2.0", "id": request["id"], "result": { "action": "accept" } }));
    let (complete, _) = p.next().await;
    assert_eq!(complete["method"], "notifications/elicitation/complete");
    assert_eq!(complete["params"]["elicitationId"], "el-1");
    let (response, route) = p.next().await;
    assert_eq!(response["result"]["structuredContent"], json!({ "action": "accept" }));
    assert_eq!(route, Sent::To(Destination::Response(tooltable::transport::jsonrpc::RequestId::Number(1))));
}

#[tokio::test]
async fn closing_the_session_fails_a_call_waiting_on_the_client() {
    let mut p = peer(json!({ "elicitation": { "url": {} } }));
    p.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "visit", "arguments": { "url": "u" } } }));
    loop {
        if p.next().await.0["method"] == "elicitation/create" {
            break;
        }
    }
    p.session.drain(Duration::from_secs(2)).await;
    let r = p.response(1).await;
    assert!(r["result"]["structuredContent"]["error"].as_str().unwrap().contains("closed"), "{r}");
}

/// How far `hold` has got: 1 once it runs, 2 once the test lets it go on.
static HOLD_STEP: AtomicU8 = AtomicU8::new(0);
static HOLD_DROPPED: AtomicBool = AtomicBool::new(false);

struct SetOnDrop;

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        HOLD_DROPPED.store(true, Ordering::SeqCst);
    }
}

/// Waits in its first run until the test has cancelled it, then never finishes.
#[tool]
async fn hold() -> Result<Value, Error> {
    let _dropped = SetOnDrop;
    HOLD_STEP.store(1, Ordering::SeqCst);
    while HOLD_STEP.load(Ordering::SeqCst) != 2 {
        std::thread::yield_now();
    }
    std::future::pending::<()>().await;
    Ok(json!({}))
}

#[test]
fn a_call_cancelled_during_its_first_run_is_dropped_not_started() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let server = Server::builder(()).tools(table![hold]).build().unwrap();
    let (outbox, mut out) = tokio::sync::mpsc::unbounded_channel();
    let session = Session::new(&server, outbox);
    session.handle_bytes(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#, &CONTEXT);
    session.handle_bytes(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, &CONTEXT);
    std::thread::scope(|s| {
        // Over HTTP the call and its cancellation arrive on different threads, as here.
        s.spawn(|| {
            let _in_runtime = runtime.enter();
            session
                .handle_bytes(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold"}}"#, &CONTEXT);
        });
        while HOLD_STEP.load(Ordering::SeqCst) != 1 {
            std::thread::yield_now();
        }
        session.handle_bytes(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            &CONTEXT,
        );
        HOLD_STEP.store(2, Ordering::SeqCst);
    });
    assert!(HOLD_DROPPED.load(Ordering::SeqCst), "the cancelled call lives on in a task nobody can stop");
    while let Ok(msg) = out.try_recv() {
        // The cancellation's own signal to the transport carries no message.
        let Outgoing::Message { json, .. } = msg else { continue };
        let msg: Value = serde_json::from_str(&json).unwrap();
        assert!(msg["id"] != 1 || msg.get("method").is_some(), "a cancelled call was answered: {msg}");
    }
}

async fn call(p: &mut Peer, id: i64, name: &str) -> Value {
    p.send(json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": name, "arguments": {} } }));
    p.response(id).await
}

#[tokio::test]
async fn form_elicitation_is_not_sent_to_a_client_that_declared_only_url_mode() {
    let mut p = peer(json!({ "elicitation": { "url": {} } }));
    let r = call(&mut p, 1, "ask").await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(r["result"]["content"][0]["text"].as_str().unwrap().contains("elicitation.form"), "{r}");
    // A client that names no mode has form mode; one that names it has it too.
    for capabilities in [json!({ "elicitation": {} }), json!({ "elicitation": { "form": {}, "url": {} } })] {
        let mut p = peer(capabilities);
        p.send(
            json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "ask", "arguments": {} } }),
        );
        let request = p.next_after_handshake().await;
        assert_eq!(request["method"], "elicitation/create", "{request}");
    }
}

#[tokio::test]
async fn sampling_with_tools_needs_the_sampling_tools_capability() {
    let mut p = peer(json!({ "sampling": {} }));
    let r = call(&mut p, 1, "sample_with_tools").await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(r["result"]["content"][0]["text"].as_str().unwrap().contains("sampling.tools"), "{r}");
    let mut p = peer(json!({ "sampling": { "tools": {} } }));
    p.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "sample_with_tools", "arguments": {} } }));
    let request = p.next_after_handshake().await;
    assert_eq!(request["method"], "sampling/createMessage", "{request}");
}

#[tokio::test]
async fn a_tool_can_require_a_url_elicitation() {
    let mut p = peer(json!({ "elicitation": { "url": {} } }));
    let r = call(&mut p, 1, "needs_authorization").await;
    assert_eq!(r["error"]["code"], -32042, "{r}");
    assert_eq!(r["error"]["message"], "Authorization is required.");
    assert_eq!(
        r["error"]["data"],
        json!({ "elicitations": [{ "mode": "url", "elicitationId": "el-9", "url": "https://example.com/connect", "message": "Sign in to Example" }] })
    );
}

#[tokio::test]
async fn a_request_with_a_null_id_is_refused() {
    let mut p = peer(json!({}));
    p.send(json!({ "jsonrpc": "2.0", "id": null, "method": "ping" }));
    let r = p.next_after_handshake().await;
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert_eq!(r["id"], Value::Null);
    assert!(r["error"]["message"].as_str().unwrap().contains("id"), "{r}");
}

#[tokio::test]
async fn a_prompt_that_refuses_an_argument_is_not_a_missing_prompt() {
    let server = Server::builder(())
        .prompt(Prompt::new("summarize").argument("id", "A note's id", true), |_, args| async move {
            Err::<PromptResult, _>(Error::not_found(format!("no note {}", args["id"])))
        })
        .build()
        .unwrap();
    let mut p = Peer::initialized(&server, json!({}));
    let get = |id: i64, name: &str| json!({ "jsonrpc": "2.0", "id": id, "method": "prompts/get", "params": { "name": name, "arguments": { "id": "7" } } });
    p.send(get(1, "summarize"));
    let refused = p.response(1).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(refused["error"]["message"], "no note 7", "the handler's own words: {refused}");
    assert_eq!(refused["error"]["data"], json!({ "error": "no note 7" }));
    p.send(get(2, "outline"));
    let missing = p.response(2).await;
    assert_eq!(missing["error"]["message"], "Prompt not found: outline", "{missing}");
    assert_eq!(missing["error"]["data"], json!({ "name": "outline" }));
}
