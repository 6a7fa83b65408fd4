//! A 2026-07-28 `tools/call` read from its text ([`StatelessCall`]) is answered as the same
//! message decoded and handled; a message of any other kind is not read so.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use support::CONTEXT;
use tooltable::transport::StatelessCall;
use tooltable::transport::jsonrpc::decode;
use tooltable::{Cx, Error, Server, table, tool};

mod support;

type Peer = support::Peer<()>;

#[derive(Deserialize, JsonSchema)]
struct Pair {
    a: i64,
    b: i64,
}

/// Adds, logging at info level.
#[tool]
async fn add(cx: &Cx<()>, args: Pair) -> Result<Value, Error> {
    cx.info("adding");
    Ok(json!({ "sum": args.a + args.b, "version": cx.protocol_version(), "capabilities": cx.client_capabilities() }))
}

#[derive(Deserialize, JsonSchema)]
struct Anything {
    #[allow(dead_code)]
    z: Value,
}

/// Asks the user's name, whatever the call brings.
#[tool]
async fn ask_name(cx: &Cx<()>, _args: Anything) -> Result<Value, Error> {
    let name = cx.elicit_form("Your name?", json!({ "type": "object" })).await;
    Ok(json!({ "name": name.map_err(|e| Error::bad_request(e.to_string()))?["content"]["name"] }))
}

/// Lets [`wait`] end.
static GATE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Runs until the test opens the gate.
#[tool]
async fn wait(_cx: &Cx<()>, _args: Anything) -> Result<Value, Error> {
    GATE.notified().await;
    Ok(json!({ "waited": true }))
}

fn server() -> Server<()> {
    Server::builder(()).info("text-test", "1").tools(table![add, ask_name, wait]).build().unwrap()
}

/// Each message a fresh session sent for `text`, read from its text when `fast`, else decoded;
/// a `requestState` is replaced by a mark (it carries the time it was sealed).
async fn answers(server: &Server<()>, text: &str, fast: bool) -> (Vec<Value>, Option<String>) {
    let mut peer = Peer::connect(server);
    let call = StatelessCall::read(text.as_bytes(), server).filter(|_| fast);
    match call {
        Some(call) => peer.session.call_stateless(call, &CONTEXT),
        None => peer.session.handle(decode(text.as_bytes()).unwrap(), &CONTEXT),
    }
    sent_until_answer(&mut peer).await
}

/// Each message the peer's session sent, up to its answer, and the answer's `requestState`,
/// replaced by a mark.
async fn sent_until_answer(peer: &mut Peer) -> (Vec<Value>, Option<String>) {
    let mut sent = Vec::new();
    let mut state = None;
    loop {
        let (mut message, _) = peer.next().await;
        let is_answer = message.get("method").is_none();
        if let Some(sealed) = message.pointer_mut("/result/requestState") {
            state = sealed.as_str().map(str::to_owned);
            *sealed = json!("sealed");
        }
        sent.push(message);
        if is_answer {
            return (sent, state);
        }
    }
}

fn call(params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}"#)
}

const META: &str =
    r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

#[tokio::test]
async fn a_call_read_from_its_text_is_answered_as_decoded() {
    let server = server();
    let with_meta = |meta: &str| call(&format!(r#"{{"name":"add","arguments":{{"a":1,"b":2}},"_meta":{meta}}}"#));
    let read = [
        call(&format!(r#"{{"name":"add","arguments":{{"a":1,"b":2}},"_meta":{META}}}"#)),
        call(&format!(r#"{{"_meta":{META},"arguments":{{"b":2,"a":1}},"name":"add"}}"#)),
        call(&format!(r#"{{"name":"add","_meta":{META}}}"#)),
        call(&format!(r#"{{"name":"add","arguments":{{"a":"x"}},"_meta":{META}}}"#)),
        with_meta(
            r#"{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}"#,
        ),
        with_meta(
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"error"}"#,
        ),
    ];
    for text in &read {
        assert!(StatelessCall::read(text.as_bytes(), &server).is_some(), "{text}");
        assert_eq!(answers(&server, text, true).await, answers(&server, text, false).await, "{text}");
    }
}

#[tokio::test]
async fn a_round_read_from_its_text_is_bound_as_decoded() {
    let server = server();
    let capabilities = r#"{"elicitation":{"form":{}}}"#;
    let meta = format!(
        r#"{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{capabilities}}}"#
    );
    let first =
        call(&format!(r#"{{"name":"ask_name","arguments":{{"z":[1,{{"y":0.50,"x":"\u00e9"}}]}},"_meta":{meta}}}"#));
    let (fast, state) = answers(&server, &first, true).await;
    let (slow, _) = answers(&server, &first, false).await;
    assert_eq!(fast, slow);
    assert_eq!(fast.last().unwrap()["result"]["resultType"], "input_required", "{fast:?}");
    // The state sealed for the call read from its text opens for the call decoded.
    let key = fast.last().unwrap()["result"]["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let state = state.unwrap();
    let second = call(&format!(
        r#"{{"name":"ask_name","arguments":{{"z":[1,{{"x":"é","y":0.5}}]}},"requestState":"{state}","inputResponses":{{"{key}":{{"action":"accept","content":{{"name":"Ada"}}}}}},"_meta":{meta}}}"#
    ));
    assert!(StatelessCall::read(second.as_bytes(), &server).is_none(), "earlier rounds' answers are read as a value");
    let (answered, _) = answers(&server, &second, false).await;
    assert_eq!(answered.last().unwrap()["result"]["structuredContent"]["name"], "Ada", "{answered:?}");
}

#[test]
fn what_is_out_of_the_ordinary_is_left_to_decode() {
    let server = server();
    let others = [
        // No tool of the server's: the answer says so, as it says it of a call decoded.
        call(&format!(r#"{{"name":"missing","arguments":{{}},"_meta":{META}}}"#)),
        call(&format!(r#"{{"name":"add","arguments":{{}},"_meta":{META},"task":{{}}}}"#)),
        call(&format!(r#"{{"name":"add","name":"add","_meta":{META}}}"#)),
        call(&format!(r#"{{"name":"a\u0064d","_meta":{META}}}"#)),
        call(&format!(r#"{{"name":7,"_meta":{META}}}"#)),
        call(&format!(r#"{{"name":"add","arguments":[1],"_meta":{META}}}"#)),
        call(&format!(r#"{{"name":"add","arguments":{{"n":1e999}},"_meta":{META}}}"#)),
        call(r#"{"name":"add","arguments":{}}"#),
        call(r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#),
        call(
            r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}"#,
        ),
        call(
            r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}"#,
        ),
        call(
            r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}"#,
        ),
        call(
            r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":null}}"#,
        ),
        call(
            r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":1}}"#,
        ),
        call(
            r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"x":"\ud800"}}"#,
        ),
        format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{{"_meta":{META}}}}}"#),
        format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"add","_meta":{META}}}}}"#),
    ];
    for text in others {
        assert!(StatelessCall::read(text.as_bytes(), &server).is_none(), "{text}");
    }
}

#[tokio::test]
async fn a_session_of_calls_serves_the_next_call_once_nothing_of_the_last_runs() {
    let server = server();
    let mut peer = Peer::for_calls(&server);
    let read = |text: &str| StatelessCall::read(text.as_bytes(), &server).map(|call| call.id().clone());
    let adding = call(&format!(r#"{{"name":"add","arguments":{{"a":1,"b":2}},"_meta":{META}}}"#));
    let waiting = call(&format!(r#"{{"name":"wait","arguments":{{"z":1}},"_meta":{META}}}"#));
    assert!(read(&adding).is_some() && read(&waiting).is_some(), "both are read from their text");

    peer.session.call_stateless(StatelessCall::read(adding.as_bytes(), &server).unwrap(), &CONTEXT);
    let answer = loop {
        let (message, _) = peer.next().await;
        if message.get("method").is_none() {
            break message;
        }
    };
    assert_eq!(answer["result"]["structuredContent"]["sum"], 3);
    assert!(peer.session.ready_for_another_call(), "the call ended: nothing holds the session");

    peer.session.call_stateless(StatelessCall::read(waiting.as_bytes(), &server).unwrap(), &CONTEXT);
    assert!(!peer.session.ready_for_another_call(), "a running call holds the session");
    GATE.notify_one();
    let (answer, _) = peer.next().await;
    assert_eq!(answer["result"]["structuredContent"]["waited"], true);
    // The call's task lets go of the session just after it sent its answer.
    let ready = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        while !peer.session.ready_for_another_call() {
            tokio::task::yield_now().await;
        }
    });
    assert!(ready.await.is_ok(), "the ended call let go of the session");

    peer.session.call_stateless(StatelessCall::read(adding.as_bytes(), &server).unwrap(), &CONTEXT);
    let answer = loop {
        let (message, _) = peer.next().await;
        if message.get("method").is_none() {
            break message;
        }
    };
    assert_eq!((answer["id"].clone(), answer["result"]["structuredContent"]["sum"].clone()), (json!(7), json!(3)));
}

/// Each call a session of calls serves is served in its own `_meta`, however the last was.
#[tokio::test]
async fn a_session_of_calls_serves_each_call_as_its_own_request() {
    let server = server();
    let mut peer = Peer::for_calls(&server);
    let elicits = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/logLevel":"info"}"#;
    let adding = |meta: &str| call(&format!(r#"{{"name":"add","arguments":{{"a":1,"b":2}},"_meta":{meta}}}"#));
    let asking = |z: u32| call(&format!(r#"{{"name":"ask_name","arguments":{{"z":{z}}},"_meta":{elicits}}}"#));
    let mut served = Vec::new();
    for text in [adding(META), adding(elicits), adding(META), asking(1), asking(22)] {
        // Each call ends before the next comes, which the session then serves in what it kept.
        let ready = tokio::time::timeout(std::time::Duration::from_secs(5), async {
            while !peer.session.ready_for_another_call() {
                tokio::task::yield_now().await;
            }
        });
        assert!(ready.await.is_ok(), "the last call let go of the session");
        peer.session.call_stateless(StatelessCall::read(text.as_bytes(), &server).unwrap(), &CONTEXT);
        served.push(sent_until_answer(&mut peer).await);
    }
    let logged = |(sent, _): &(Vec<Value>, Option<String>)| sent.iter().any(|m| m["method"] == "notifications/message");
    let capabilities = |(sent, _): &(Vec<Value>, Option<String>)| {
        sent.last().unwrap()["result"]["structuredContent"]["capabilities"].clone()
    };
    assert_eq!(served.iter().take(3).map(logged).collect::<Vec<_>>(), [false, true, false], "each its log level");
    assert_eq!(capabilities(&served[1]), json!({ "elicitation": { "form": {} } }));
    assert_eq!((capabilities(&served[0]), capabilities(&served[2])), (json!({}), json!({})));
    // Each question's state is bound to the call that asked it: it opens for that call alone.
    let answering = |z: u32, state: &str| {
        call(&format!(
            r#"{{"name":"ask_name","arguments":{{"z":{z}}},"requestState":"{state}","inputResponses":{{}},"_meta":{elicits}}}"#
        ))
    };
    for (asked, z) in [(&served[3], 1), (&served[4], 22)] {
        let state = asked.1.as_deref().unwrap();
        let (own, _) = answers(&server, &answering(z, state), false).await;
        assert_eq!(own.last().unwrap()["result"]["resultType"], "input_required", "{own:?}");
        let (other, _) = answers(&server, &answering(23 - z, state), false).await;
        let refusal = other.last().unwrap()["error"]["message"].as_str().unwrap().to_owned();
        assert!(refusal.contains("another request"), "{refusal}");
    }
}

#[test]
fn only_a_session_of_calls_is_readied_for_another() {
    let server = server();
    let mut peer = Peer::connect(&server);
    assert!(!peer.session.ready_for_another_call(), "a session the server knows serves its own client");
}
