//! `ServerBuilder::mount`: another server's tools, prompts and resources served as this one's,
//! each run in the mounted server with its own state, through the call that runs it.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use support::Peer;
use tooltable::content::{ContentBlock, ResourceContents};
use tooltable::prompts::{Prompt, PromptMessage, PromptResult};
use tooltable::resources::Resource;
use tooltable::tool::TableError;
use tooltable::{Cx, Error, Server, table, tool};

mod support;

#[derive(Deserialize, JsonSchema)]
struct Amount {
    n: u32,
}

/// Counts up by `n` from the mounted server's own start, logging as it goes.
#[tool]
async fn count(cx: &Cx<u32>, args: Amount) -> Result<Value, Error> {
    cx.log(tooltable::context::LogLevel::Info, json!({ "n": args.n }));
    Ok(json!({ "total": cx.state() + args.n }))
}

/// The host's own tool.
#[tool]
async fn hello() -> Result<Value, Error> {
    Ok(json!("hello"))
}

fn counter(start: u32) -> Server<u32> {
    Server::builder(start)
        .tools(table![count])
        .prompt(Prompt::new("explain"), |cx: Cx<u32>, _| async move {
            let text = format!("counting from {}", cx.state());
            Ok(PromptResult { description: None, messages: vec![PromptMessage::user(ContentBlock::text(text))] })
        })
        .resource(Resource::new("counter://start", "start"), |cx: Cx<u32>, _| async move {
            Ok(vec![ResourceContents::text("counter://start", "text/plain", cx.state().to_string())])
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_mounted_servers_tools_prompts_and_resources_are_served_under_its_prefix() {
    let host = Server::builder(()).tools(table![hello]).mount("tens", counter(10)).build().unwrap();
    let names: Vec<String> = host.table().descriptors().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["hello", "tens_count"]);
    assert_eq!(host.call("tens_count", json!({ "n": 5 })).await.unwrap(), json!({ "total": 15 }));
    let refused = host.call("tens_count", json!({ "n": "five" })).await.unwrap_err();
    assert!(refused.to_string().contains("n"), "the mounted tool's schema is checked: {refused}");

    let mut peer = Peer::initialized(&host, json!({}));
    peer.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": { "level": "info" } }));
    peer.response(1).await;
    peer.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "tens_count", "arguments": { "n": 1 } } }));
    let (log, _) = peer.next().await;
    assert_eq!(
        (log["method"].clone(), log["params"]["data"].clone()),
        (json!("notifications/message"), json!({ "n": 1 }))
    );
    assert_eq!(peer.response(2).await["result"]["structuredContent"], json!({ "total": 11 }));
    peer.send(json!({ "jsonrpc": "2.0", "id": 3, "method": "prompts/get", "params": { "name": "tens_explain" } }));
    assert_eq!(peer.response(3).await["result"]["messages"][0]["content"]["text"], "counting from 10");
    peer.send(json!({ "jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": { "uri": "counter://start" } }));
    assert_eq!(peer.response(4).await["result"]["contents"][0]["text"], "10");
}

#[test]
fn a_name_or_uri_two_servers_share_is_a_build_error() {
    let twice = Server::builder(()).mount("a", counter(1)).mount("b", counter(2)).build();
    assert!(
        matches!(&twice, Err(TableError::Duplicate { kind: "resource", name }) if name == "counter://start"),
        "{:?}",
        twice.err()
    );
    let clash = Server::builder(())
        .tools(table![hello])
        .mount("hello", Server::builder(()).tools(table![hello]).build().unwrap());
    let clash = clash.mount("hello", Server::builder(()).tools(table![hello]).build().unwrap()).build();
    assert!(matches!(&clash, Err(TableError::DuplicateName { name }) if name == "hello_hello"), "{:?}", clash.err());
}
