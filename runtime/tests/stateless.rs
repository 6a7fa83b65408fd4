//! Revision 2026-07-28 on the transport-independent session: requests that carry their own
//! `_meta`, with no handshake, answered in that revision's shape.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use tooltable::content::ResourceContents;
use tooltable::context::InputRequest;
use tooltable::resources::Resource;
use tooltable::server::StateKey;
use tooltable::{Cx, Error, Server, table, tool};

mod support;

type Peer = support::Peer<()>;

#[derive(Serialize, JsonSchema)]
struct Greeting {
    text: String,
}

/// Greets, logging at info level.
#[tool(read_only)]
async fn greet(cx: &Cx<()>) -> Result<Greeting, Error> {
    cx.info("greeting");
    Ok(Greeting { text: "hello".into() })
}

/// Asks the user's name, then their colour: two questions, one after the other.
#[tool]
async fn two_steps(cx: &Cx<()>) -> Result<Value, Error> {
    let schema = json!({ "type": "object" });
    let name = cx.elicit_form("Your name?", schema.clone()).await.map_err(|e| Error::bad_request(e.to_string()))?;
    let colour = cx.elicit_form("Your colour?", schema).await.map_err(|e| Error::bad_request(e.to_string()))?;
    Ok(json!({ "name": name["content"]["name"], "colour": colour["content"]["colour"] }))
}

/// Asks two things at once, by name.
#[tool]
async fn both_at_once(cx: &Cx<()>) -> Result<Value, Error> {
    let answers = cx
        .ask(vec![
            ("user_name".into(), InputRequest::elicit_form("Your name?", json!({ "type": "object" }))),
            ("client_roots".into(), InputRequest::list_roots()),
        ])
        .await
        .map_err(|e| Error::bad_request(e.to_string()))?;
    Ok(json!({ "name": answers["user_name"]["content"]["name"], "roots": answers["client_roots"]["roots"] }))
}

/// Needs the client's model.
#[tool]
async fn needs_sampling(cx: &Cx<()>) -> Result<Value, Error> {
    let params = json!({ "messages": [], "maxTokens": 10 });
    cx.create_message(params).await.map_err(|e| Error::bad_request(e.to_string()))
}

/// Asks the client with a method of its own naming.
#[tool]
async fn custom_question(cx: &Cx<()>) -> Result<Value, Error> {
    cx.request_client("x/custom", json!({ "q": 1 })).await.map_err(|e| Error::bad_request(e.to_string()))
}

fn server() -> Server<()> {
    server_with_key(StateKey::random())
}

fn server_with_key(key: StateKey) -> Server<()> {
    Server::builder(())
        .info("stateless-test", "1.2.3")
        .state_key(key)
        .tools(table![greet, two_steps, both_at_once, needs_sampling, custom_question])
        .resource(Resource::new("test://a", "a"), |_, req| async move {
            Ok(vec![ResourceContents::text(&req.uri, "text/plain", "A")])
        })
        .build()
        .unwrap()
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "t", "version": "0" },
    })
}

/// Sends a request with `params` plus the standard `_meta`, and returns the answer.
async fn ask(p: &mut Peer, id: i64, method: &str, mut params: Value) -> Value {
    if params.get("_meta").is_none() {
        params["_meta"] = meta();
    }
    p.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
    p.response(id).await
}

#[tokio::test]
async fn a_request_without_its_meta_is_invalid_params() {
    let mut p = Peer::connect(&server());
    let without = |key: &str| {
        let mut m = meta();
        m.as_object_mut().unwrap().remove(key);
        json!({ "_meta": m })
    };
    let cases = [
        json!({}),
        without("io.modelcontextprotocol/protocolVersion"),
        without("io.modelcontextprotocol/clientCapabilities"),
    ];
    for (id, params) in (1..).zip(cases) {
        p.send(json!({ "jsonrpc": "2.0", "id": id, "method": "server/discover", "params": params }));
        let r = p.response(id).await;
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert_eq!(r["id"], id);
    }
    let r =
        ask(&mut p, 9, "server/discover", json!({ "_meta": without("io.modelcontextprotocol/clientInfo")["_meta"] }))
            .await;
    assert_eq!(r["result"]["resultType"], "complete", "clientInfo is optional: {r}");
}

#[tokio::test]
async fn an_unsupported_version_lists_the_supported_ones() {
    let mut p = Peer::connect(&server());
    let mut m = meta();
    m["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let r = ask(&mut p, 1, "tools/list", json!({ "_meta": m })).await;
    assert_eq!(r["error"]["code"], -32022, "{r}");
    assert_eq!(r["error"]["data"]["requested"], "v999.0.0");
    let supported = r["error"]["data"]["supported"].as_array().unwrap();
    assert!(supported.contains(&json!("2026-07-28")) && supported.contains(&json!("2025-11-25")), "{r}");
}

#[tokio::test]
async fn discover_gives_versions_capabilities_and_identity() {
    let mut p = Peer::connect(&server());
    let r = ask(&mut p, 1, "server/discover", json!({})).await;
    let result = &r["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["supportedVersions"][0], "2026-07-28");
    assert!(result["capabilities"]["tools"].is_object() && result["capabilities"]["resources"].is_object(), "{r}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({ "name": "stateless-test", "version": "1.2.3" })
    );
    assert_eq!((result["ttlMs"].clone(), result["cacheScope"].clone()), (json!(0), json!("private")));
}

#[tokio::test]
async fn lists_and_reads_carry_cache_hints_and_calls_do_not() {
    let mut p = Peer::connect(&server());
    let list = ask(&mut p, 1, "tools/list", json!({})).await;
    assert_eq!(list["result"]["resultType"], "complete");
    assert_eq!(list["result"]["tools"][0]["name"], "greet");
    assert!(list["result"]["tools"][0]["outputSchema"].is_object(), "structured output is part of the revision");
    assert!(list["result"]["ttlMs"].is_u64() && list["result"]["cacheScope"].is_string(), "{list}");
    let read = ask(&mut p, 2, "resources/read", json!({ "uri": "test://a" })).await;
    assert_eq!(read["result"]["contents"][0]["text"], "A");
    assert!(read["result"]["ttlMs"].is_u64(), "{read}");
    let call = ask(&mut p, 3, "tools/call", json!({ "name": "greet", "arguments": {} })).await;
    assert_eq!(call["result"]["resultType"], "complete");
    assert_eq!(call["result"]["structuredContent"], json!({ "text": "hello" }));
    assert_eq!(call["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "stateless-test");
    assert!(call["result"].get("ttlMs").is_none(), "{call}");
}

#[tokio::test]
async fn an_unknown_resource_is_invalid_params_in_this_revision() {
    let mut p = Peer::connect(&server());
    let r = ask(&mut p, 1, "resources/read", json!({ "uri": "test://missing" })).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(r["error"]["data"]["uri"], "test://missing");
}

#[tokio::test]
async fn removed_methods_are_unknown_in_this_revision() {
    let mut p = Peer::connect(&server());
    for (id, method) in (1..).zip(["initialize", "ping", "logging/setLevel", "resources/subscribe", "unknown/method"]) {
        let r = ask(&mut p, id, method, json!({ "uri": "test://a", "level": "info" })).await;
        assert_eq!(r["error"]["code"], -32601, "{method}: {r}");
        assert_eq!(r["id"], id);
    }
}

#[tokio::test]
async fn logs_are_sent_only_at_the_level_the_request_asked_for() {
    let mut p = Peer::connect(&server());
    let call = json!({ "name": "greet", "arguments": {} });
    ask(&mut p, 1, "tools/call", call.clone()).await;
    assert!(p.quiet_for(Duration::from_millis(50)).await, "no logLevel, no log");

    let mut m = meta();
    m["io.modelcontextprotocol/logLevel"] = json!("info");
    p.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "greet", "arguments": {}, "_meta": m } }));
    let (log, _) = p.next().await;
    assert_eq!(
        (log["method"].clone(), log["params"]["data"].clone()),
        (json!("notifications/message"), json!("greeting"))
    );
    p.response(2).await;

    m["io.modelcontextprotocol/logLevel"] = json!("error");
    p.send(json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "greet", "arguments": {}, "_meta": m } }));
    let (next, _) = p.next().await;
    assert_eq!(next["id"], 3, "an info message is below `error`: {next}");
}

#[tokio::test]
async fn a_session_with_a_handshake_keeps_its_revision() {
    let mut p = Peer::initialized(&server(), json!({}));
    let r = ask(&mut p, 1, "tools/list", json!({})).await;
    assert!(r["result"].get("resultType").is_none(), "{r}");
    p.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" }));
    assert_eq!(p.response(2).await["result"], json!({}));
}

fn with_capabilities(capabilities: Value) -> Value {
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    m
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

#[tokio::test]
async fn a_question_ends_the_round_and_the_retry_carries_on_where_it_stopped() {
    let mut p = Peer::connect(&server());
    let m = with_capabilities(json!({ "elicitation": {} }));
    let call = |extra: Value| {
        let mut params = json!({ "name": "two_steps", "arguments": {}, "_meta": m.clone() });
        params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        params
    };
    let r1 = ask(&mut p, 1, "tools/call", call(json!({}))).await;
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    let q1 = &r1["result"]["inputRequests"]["input-1"];
    assert_eq!(
        (q1["method"].clone(), q1["params"]["message"].clone()),
        (json!("elicitation/create"), json!("Your name?"))
    );
    let state1 = r1["result"]["requestState"].as_str().unwrap().to_owned();

    let answer1 = json!({ "input-1": accept(json!({ "name": "Ada" })) });
    let r2 = ask(&mut p, 2, "tools/call", call(json!({ "inputResponses": answer1, "requestState": state1 }))).await;
    assert_eq!(r2["result"]["resultType"], "input_required", "{r2}");
    assert_eq!(r2["result"]["inputRequests"]["input-2"]["params"]["message"], "Your colour?");
    assert!(r2["result"]["inputRequests"].get("input-1").is_none(), "answered questions are not asked again");
    let state2 = r2["result"]["requestState"].as_str().unwrap().to_owned();
    assert_ne!(state2, state1);

    let answer2 = json!({ "input-2": accept(json!({ "colour": "blue" })) });
    let r3 = ask(&mut p, 3, "tools/call", call(json!({ "inputResponses": answer2, "requestState": state2 }))).await;
    assert_eq!(r3["result"]["resultType"], "complete", "{r3}");
    assert_eq!(r3["result"]["structuredContent"], json!({ "name": "Ada", "colour": "blue" }));
}

#[tokio::test]
async fn questions_asked_together_come_in_one_round() {
    let mut p = Peer::connect(&server());
    let m = with_capabilities(json!({ "elicitation": {}, "roots": {} }));
    let r1 = ask(&mut p, 1, "tools/call", json!({ "name": "both_at_once", "arguments": {}, "_meta": m })).await;
    let asked = r1["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(asked.keys().collect::<Vec<_>>(), ["user_name", "client_roots"], "{r1}");
    assert_eq!(asked["client_roots"]["method"], "roots/list");
    let answers = json!({
        "user_name": accept(json!({ "name": "Ada" })),
        "client_roots": { "roots": [{ "uri": "file:///r" }] },
        "unexpected": { "ignored": true },
    });
    let retry = json!({ "name": "both_at_once", "arguments": {}, "_meta": m, "inputResponses": answers, "requestState": r1["result"]["requestState"] });
    let r2 = ask(&mut p, 2, "tools/call", retry).await;
    assert_eq!(r2["result"]["structuredContent"], json!({ "name": "Ada", "roots": [{ "uri": "file:///r" }] }), "{r2}");
}

#[tokio::test]
async fn a_tampered_or_foreign_state_is_refused() {
    let mut p = Peer::connect(&server());
    let m = with_capabilities(json!({ "elicitation": {} }));
    let r1 = ask(&mut p, 1, "tools/call", json!({ "name": "two_steps", "arguments": {}, "_meta": m })).await;
    let state = r1["result"]["requestState"].as_str().unwrap().to_owned();
    let answer = json!({ "input-1": accept(json!({ "name": "Ada" })) });
    let tampered = json!({ "name": "two_steps", "arguments": {}, "_meta": m, "inputResponses": answer, "requestState": format!("{state}-TAMPERED") });
    let r = ask(&mut p, 2, "tools/call", tampered).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("integrity"), "{r}");
    let foreign =
        json!({ "name": "both_at_once", "arguments": {}, "_meta": m, "inputResponses": answer, "requestState": state });
    let r = ask(&mut p, 3, "tools/call", foreign).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("another request"), "{r}");
}

#[tokio::test]
async fn a_retry_may_land_on_another_instance_that_shares_the_key() {
    let secret = b"a secret every instance is given";
    let (first, second) = (
        server_with_key(StateKey::from_secret(secret).unwrap()),
        server_with_key(StateKey::from_secret(secret).unwrap()),
    );
    let m = with_capabilities(json!({ "elicitation": {} }));
    let mut a = Peer::connect(&first);
    let r1 = ask(&mut a, 1, "tools/call", json!({ "name": "two_steps", "arguments": {}, "_meta": m })).await;
    let mut b = Peer::connect(&second);
    let answer = json!({ "input-1": accept(json!({ "name": "Ada" })) });
    let retry = json!({ "name": "two_steps", "arguments": {}, "_meta": m, "inputResponses": answer, "requestState": r1["result"]["requestState"] });
    let r2 = ask(&mut b, 2, "tools/call", retry.clone()).await;
    assert_eq!(r2["result"]["inputRequests"]["input-2"]["params"]["message"], "Your colour?", "{r2}");
    let mut stranger = Peer::connect(&server());
    let r = ask(&mut stranger, 3, "tools/call", retry).await;
    assert_eq!(r["error"]["code"], -32602, "an instance with another key refuses it: {r}");
}

#[tokio::test]
async fn a_question_the_client_cannot_answer_is_a_missing_capability() {
    let mut p = Peer::connect(&server());
    let r = ask(&mut p, 1, "tools/call", json!({ "name": "needs_sampling", "arguments": {} })).await;
    assert_eq!(r["error"]["code"], -32021, "{r}");
    assert_eq!(r["error"]["data"]["requiredCapabilities"], json!({ "sampling": {} }));
}

#[tokio::test]
async fn a_listen_is_acknowledged_then_hears_what_it_asked_for() {
    let server = server();
    let mut p = Peer::connect(&server);
    let filter = json!({ "toolsListChanged": true, "promptsListChanged": true, "resourceSubscriptions": ["test://a", "test://nothing"] });
    p.send(json!({ "jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": { "_meta": meta(), "notifications": filter } }));
    let (ack, route) = p.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    assert_eq!(
        ack["params"]["notifications"],
        json!({ "toolsListChanged": true, "resourceSubscriptions": ["test://a"] }),
        "only what the server honours"
    );
    assert_eq!(
        route,
        support::Sent::To(tooltable::transport::Destination::During(tooltable::transport::jsonrpc::RequestId::Number(
            7
        )))
    );

    server.resource_updated("test://a");
    let (updated, _) = p.next().await;
    assert_eq!(
        (updated["method"].clone(), updated["params"]["uri"].clone()),
        (json!("notifications/resources/updated"), json!("test://a"))
    );
    assert_eq!(updated["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    server.resource_updated("test://other");
    let descriptor = tooltable::tool::ToolDescriptor::new("added", "Added at run time.", json!({ "type": "object" }));
    server
        .add_tool(tooltable::tool::DynamicTool::new(descriptor, |_, _| async {
            Ok(tooltable::tool::Output::Json(json!({})))
        }))
        .unwrap();
    let (changed, _) = p.next().await;
    assert_eq!(
        changed["method"], "notifications/tools/list_changed",
        "nothing for a resource it did not watch: {changed}"
    );

    p.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 7 } }));
    let (_, route) = p.next().await;
    assert_eq!(
        route,
        support::Sent::Cancelled(tooltable::transport::jsonrpc::RequestId::Number(7)),
        "the stream is let go of"
    );
    server.resource_updated("test://a");
    assert!(p.quiet_for(Duration::from_millis(50)).await, "a cancelled listen hears nothing");
}

#[tokio::test]
async fn a_listen_is_open_until_it_is_cancelled_or_its_session_ends() {
    let server = server();
    let listen = |id: i64| json!({ "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": { "_meta": meta(), "notifications": { "toolsListChanged": true } } });
    let mut p = Peer::connect(&server);
    let mut other = Peer::connect(&server);
    for id in [1, 2] {
        p.send(listen(id));
        p.next().await;
    }
    other.send(listen(1));
    other.next().await;
    assert_eq!(server.open_listens(), 3);
    p.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 2 } }));
    p.next().await;
    assert_eq!(server.open_listens(), 2);
    drop(p);
    assert_eq!(server.open_listens(), 1, "a session's listens end with it");
}

#[tokio::test]
async fn a_listen_that_asks_for_nothing_the_server_has_hears_nothing() {
    let server = server();
    let mut p = Peer::connect(&server);
    p.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": { "_meta": meta(), "notifications": { "promptsListChanged": true } } }));
    let (ack, _) = p.next().await;
    assert_eq!(ack["params"]["notifications"], json!({}));
    let descriptor = tooltable::tool::ToolDescriptor::new("added", "Added at run time.", json!({ "type": "object" }));
    server
        .add_tool(tooltable::tool::DynamicTool::new(descriptor, |_, _| async {
            Ok(tooltable::tool::Output::Json(json!({})))
        }))
        .unwrap();
    assert!(p.quiet_for(Duration::from_millis(50)).await, "no tools/list_changed on a prompts-only listen");
}

#[tokio::test]
async fn a_raw_question_keeps_its_method() {
    let mut p = Peer::connect(&server());
    let r = ask(&mut p, 1, "tools/call", json!({ "name": "custom_question", "arguments": {} })).await;
    assert_eq!(r["result"]["inputRequests"]["input-1"], json!({ "method": "x/custom", "params": { "q": 1 } }), "{r}");
}
