//! Forwarding to a tooltable server served in this process on a free loopback port (the HTTP
//! tests' table): bodies spread into arguments or taken whole, typed query values, a 201, and
//! every error kind, each compared with calling the same server's tool directly.

use serde_json::{Value, json};
use tooltable_transports::forward::{Options, Remote};
use tooltable_transports::http::HttpOptions;

use crate::table;

async fn forwarded(descriptors: bool) -> (table::Running, tooltable::Server<()>) {
    let running = table::start(HttpOptions::default()).await;
    let mut remote = Remote::connect(&format!("http://{}", running.addr), Options::default()).await.unwrap();
    if descriptors {
        let own: Vec<Value> = table::server().table().descriptors().iter().map(|d| d.to_mcp()).collect();
        remote = remote.with_descriptors(Value::Array(own)).unwrap();
    }
    let server = tooltable::Server::builder(()).info("forwarder", "0.0.0").build().unwrap();
    remote.install(&server).unwrap();
    (running, server)
}

#[tokio::test]
async fn calls_give_what_the_tools_give_in_process() {
    let direct = table::server();
    for with_descriptors in [false, true] {
        let (_running, server) = forwarded(with_descriptors).await;
        let body = if with_descriptors { "mutations" } else { "body" };
        for (tool, arguments) in [
            ("get_state", json!({ "id": 7, "depth": 2, "ratio": 0.25, "deep": true, "paths": ["$.a", "$.b c"] })),
            ("get_state", json!({ "id": 8 })),
            ("mutate", json!({ "id": "m/1", body: { "$.price": 10 }, "includeTraces": true })),
            ("create_thing", json!({ "name": "a thing" })),
            ("evolve", json!({ "id": "m1" })),
        ] {
            let mut direct_arguments = arguments.clone();
            if let Some(mutations) = direct_arguments.as_object_mut().and_then(|a| a.remove(body)) {
                direct_arguments["mutations"] = mutations;
            }
            let expected = direct.call(tool, direct_arguments).await;
            assert_eq!(server.call(tool, arguments.clone()).await, expected, "{tool} {arguments} ({body})");
        }
        for kind in ["invalid_input", "forbidden", "not_found", "conflict", "bad_request", "too_large", "internal"] {
            let arguments = json!({ "kind": kind });
            assert_eq!(server.call("fail", arguments.clone()).await, direct.call("fail", arguments).await, "{kind}");
        }
        assert!(server.table().get("slow").is_none(), "a tool without a REST route is not in the document");
    }
}

#[tokio::test]
async fn a_body_field_is_one_argument_until_the_descriptors_name_it() {
    let running = table::start(HttpOptions::default()).await;
    let remote = Remote::connect(&format!("http://{}", running.addr), Options::default()).await.unwrap();
    let arguments = |r: &Remote, tool: &str| {
        let descriptor = r.descriptors().find(|d| d.name == tool).unwrap();
        let mut names: Vec<String> =
            descriptor.input_schema["properties"].as_object().unwrap().keys().cloned().collect();
        names.sort();
        names
    };
    assert_eq!(arguments(&remote, "mutate"), ["body", "id", "includeTraces"], "a body the document cannot spread");
    assert_eq!(arguments(&remote, "create_thing"), ["name"], "a closed object body, spread into its fields");
    let own: Vec<Value> = table::server().table().descriptors().iter().map(|d| d.to_mcp()).collect();
    let remote = remote.with_descriptors(Value::Array(own)).unwrap();
    assert_eq!(arguments(&remote, "mutate"), ["id", "includeTraces", "mutations"]);
}
