//! A server forwarding its own tools to another instance of itself (`forward::mirror`, what
//! `mcp --url` does): the listing is unchanged, calls answer as in process, local tools stay in
//! process and work with the remote gone, and the API key travels.

use serde_json::{Value, json};
use tooltable::{ErrorKind, Server};
use tooltable_transports::forward::{Options, mirror};
use tooltable_transports::http::HttpOptions;
use tooltable_transports::http::ApiKey;

use crate::table;

fn listing(server: &Server<()>) -> Vec<Value> {
    server.table().descriptors().iter().map(|d| d.to_mcp()).collect()
}

#[tokio::test]
async fn a_mirrored_server_lists_its_own_tools_and_answers_as_in_process() {
    let running = table::start(HttpOptions::default()).await;
    let direct = table::server();
    let mut server = table::server();
    let mirror = mirror(&mut server, &format!("http://{}", running.addr), Options::default()).unwrap();
    assert_eq!(mirror.forwarded, ["fail", "evolve", "get_state", "mutate", "create_thing"], "those with a route");
    assert_eq!(listing(&server), listing(&direct), "names, schemas and order unchanged");
    for (tool, arguments) in [
        ("get_state", json!({ "id": 7, "depth": 2, "paths": ["$.a"] })),
        ("mutate", json!({ "id": "m/1", "mutations": { "$.price": 10 } })),
        ("create_thing", json!({ "name": "a thing" })),
        ("evolve", json!({ "id": "m1" })),
        ("fail", json!({ "kind": "conflict" })),
        ("fail", json!({ "kind": "invalid_input" })),
    ] {
        assert_eq!(server.call(tool, arguments.clone()).await, direct.call(tool, arguments.clone()).await, "{tool}");
    }
}

#[tokio::test]
async fn local_tools_stay_in_process_and_forwarded_ones_fail_naming_the_url_once_the_remote_is_gone() {
    let running = table::start(HttpOptions::default()).await;
    let url = format!("http://{}", running.addr);
    let mut server = Server::builder(())
        .info("http-test", "1.2.3")
        .local_tools(["create_thing"])
        .tools(tooltable::table![table::create_thing, table::get_state])
        .build()
        .unwrap();
    let mirror = mirror(&mut server, &url, Options::default()).unwrap();
    assert_eq!(mirror.forwarded, ["get_state"]);
    drop(running.stop);
    let _ = running.done.await;
    assert!(server.call("create_thing", json!({ "name": "here" })).await.is_ok(), "runs in process");
    let failure = server.call("get_state", json!({ "id": 1 })).await.unwrap_err();
    assert_eq!(failure.kind, ErrorKind::Internal);
    assert_eq!(failure.body["reason"], "unreachable");
    assert_eq!(failure.body["url"], format!("{url}/models/1/state"));
}

#[tokio::test]
async fn the_api_key_is_sent_and_a_wrong_one_is_a_failure_naming_the_url() {
    let options = HttpOptions { api_key: Some(ApiKey::new("t0k3n").unwrap()), ..HttpOptions::default() };
    let running = table::start(options).await;
    let url = format!("http://{}", running.addr);
    for (token, works) in [("t0k3n", true), ("other", false)] {
        let mut server = table::server();
        mirror(&mut server, &url, Options::default().bearer_token(token)).unwrap();
        let answer = server.call("create_thing", json!({ "name": "x" })).await;
        assert_eq!(answer.is_ok(), works, "{token}: {answer:?}");
        if let Err(failure) = answer {
            assert_eq!(failure.body["reason"], "unauthorized");
            assert!(!failure.body.to_string().contains(token));
        }
    }
}

#[tokio::test]
async fn a_shared_server_is_not_mirrored() {
    let mut server = table::server();
    let _shared = server.clone();
    let refused = mirror(&mut server, "http://127.0.0.1:9", Options::default()).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "a tool cannot be forwarded: the server is already shared; its handlers can no longer change"
    );
}
