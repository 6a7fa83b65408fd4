//! Forwarding to the entity repository server and the conformance server: each forwarded call
//! gives what calling the tool in the server's own process gives, failures included.

use serde_json::{Value, json};
use tooltable::ErrorKind;
use tooltable::context::Transport;
use tooltable::transport::RequestContext;
use tooltable_transports::forward::{Options, Remote};

use crate::support::{call_in_process, forwarding, own_descriptors, serve, workspace};

const ENTITIES: &str = "entities";
const CONFORMANCE: &str = "conformance-server";

fn root() -> String {
    workspace().join("servers/entities/examples/full").display().to_string()
}

#[tokio::test]
async fn every_entities_tool_is_forwarded_and_answers_as_in_its_own_process() {
    let root = root();
    let args = ["--root", root.as_str()];
    let served = serve(ENTITIES, &args);
    let (server, remote) = forwarding(&served.url, Options::default()).await;
    assert!(remote.skipped().is_empty(), "{:?}", remote.skipped());

    let own = own_descriptors(ENTITIES, &args);
    let names: Vec<&str> = own.iter().filter_map(|t| t["name"].as_str()).collect();
    let forwarded: Vec<&str> = remote.descriptors().map(|d| d.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    let mut forwarded_sorted = forwarded.clone();
    forwarded_sorted.sort();
    assert_eq!(forwarded_sorted, sorted);
    for tool in &own {
        let name = tool["name"].as_str().unwrap();
        let d = remote.descriptors().find(|d| d.name == name).unwrap();
        let keys = |schema: &Value| schema["properties"].as_object().map(|p| p.keys().cloned().collect::<Vec<_>>());
        assert_eq!(keys(&d.input_schema), keys(&tool["inputSchema"]), "{name}: the same arguments");
        assert_eq!(d.input_schema.get("required"), tool["inputSchema"].get("required"), "{name}");
        assert_eq!(d.title.as_deref(), tool["title"].as_str(), "{name}: the title comes back from the summary");
        assert_eq!(d.annotations.read_only, Some(true), "{name} is a GET");
        assert_eq!(d.output_schema.is_some(), tool.get("outputSchema").is_some(), "{name}");
    }

    for (tool, arguments) in [
        ("entity_list", json!({})),
        ("entity_show", json!({ "entity": "User" })),
        ("object_list", json!({ "entity": "Comment" })),
        ("object_get", json!({ "entity": "User", "id": "user-alice" })),
        ("repository_export", json!({ "entities": ["User", "Post"] })),
        ("files_list", json!({ "entity": "Post" })),
        ("files_list", json!({})),
    ] {
        let expected = call_in_process(ENTITIES, &args, tool, &arguments);
        assert!(expected.is_ok(), "{tool} {arguments} fails in process: {expected:?}");
        let got = server.call(tool, arguments.clone()).await.map_err(|f| f.body);
        assert_eq!(got, expected, "{tool} {arguments}");
    }
}

#[tokio::test]
async fn failures_keep_the_servers_bodies_and_their_kinds() {
    let root = root();
    let args = ["--root", root.as_str(), "--allow", "User"];
    let served = serve(ENTITIES, &args);
    let (server, _remote) = forwarding(&served.url, Options::default()).await;

    for id in ["no such/one?", "..", "."] {
        let missing = json!({ "entity": "User", "id": id });
        let failure = server.call("object_get", missing.clone()).await.unwrap_err();
        assert_eq!(failure.kind, ErrorKind::NotFound);
        assert_eq!(
            Err(failure.body),
            call_in_process(ENTITIES, &args, "object_get", &missing),
            "{id:?} travels intact"
        );
    }

    let hidden = json!({ "entity": "Post" });
    let failure = server.call("entity_show", hidden.clone()).await.unwrap_err();
    assert_eq!(failure.kind, ErrorKind::Forbidden);
    assert_eq!(Err(failure.body), call_in_process(ENTITIES, &args, "entity_show", &hidden));
}

#[tokio::test]
async fn the_conformance_servers_rest_tool_is_forwarded_and_its_422_keeps_its_violations() {
    let served = serve(CONFORMANCE, &[]);
    let (server, remote) = forwarding(&served.url, Options::default()).await;
    let sum = json!({ "a": 2.5, "b": 40 });
    assert_eq!(
        server.call("add_numbers", sum.clone()).await.map_err(|f| f.body),
        call_in_process(CONFORMANCE, &[], "add_numbers", &sum)
    );
    let add = remote.descriptors().find(|d| d.name == "add_numbers").unwrap();
    assert_eq!(add.output_schema.as_ref().unwrap()["properties"]["sum"]["type"], "number");

    // The forwarding server validates too; the handler itself is called to reach the remote's check.
    let tool = remote.tools::<()>().into_iter().find(|t| t.descriptor.name == "add_numbers").unwrap();
    let bad = json!({ "a": "two", "b": 40 });
    let failure = (tool.handler)(server.cx(&RequestContext::new(Transport::InProcess)), bad.clone()).await.unwrap_err();
    assert_eq!(failure.kind, ErrorKind::InvalidInput);
    assert_eq!(failure.body["error"], "Invalid arguments");
    assert_eq!(failure.body["violations"][0]["path"], "/a", "{}", failure.body);
    assert_eq!(Err(failure.body), call_in_process(CONFORMANCE, &[], "add_numbers", &bad), "the structure is kept");
}

#[tokio::test]
async fn a_remote_that_stops_gives_failures_naming_its_url() {
    let root = root();
    let mut served = serve(ENTITIES, &["--root", root.as_str()]);
    let (server, _remote) = forwarding(&served.url, Options::default()).await;
    assert!(server.call("entity_list", json!({})).await.is_ok());

    served.child.kill().unwrap();
    served.child.wait().unwrap();
    let failure = server.call("entity_show", json!({ "entity": "User" })).await.unwrap_err();
    assert_eq!(failure.kind, ErrorKind::Internal);
    assert_eq!(failure.body["reason"], "unreachable");
    assert_eq!(failure.body["url"], format!("{}/entities/User", served.url));
    assert!(
        failure.body["error"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}/entities/User could not be reached", served.url))
    );
}

#[tokio::test]
async fn with_the_servers_own_descriptors_each_tool_is_listed_exactly_as_the_server_lists_it() {
    let root = root();
    let args = ["--root", root.as_str()];
    let served = serve(ENTITIES, &args);
    let mut own = own_descriptors(ENTITIES, &args);
    let remote = Remote::connect(&served.url, Options::default()).await.unwrap();
    let remote = remote.with_descriptors(Value::Array(own.clone())).unwrap();
    let mut listed: Vec<Value> = remote.descriptors().map(|d| d.to_mcp()).collect();
    let by_name = |t: &Value| t["name"].as_str().unwrap_or_default().to_owned();
    listed.sort_by_key(by_name);
    own.sort_by_key(by_name);
    assert_eq!(listed, own);

    let server = tooltable::Server::builder(()).info("forwarder", "0.0.0").build().unwrap();
    remote.install(&server).unwrap();
    let get = json!({ "entity": "User", "id": "user-bob" });
    assert_eq!(
        server.call("object_get", get.clone()).await.map_err(|f| f.body),
        call_in_process(ENTITIES, &args, "object_get", &get)
    );
}
