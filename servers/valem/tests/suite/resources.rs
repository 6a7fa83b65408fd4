//! The reading material: every bundled example passes its own tests and validates without a
//! finding, and every guide and example is served over stdio (an unknown one is -32002).

use crate::support::mcp_client;

use std::path::Path;

use serde_json::{Value, json};
use valem::resources::{EXAMPLES, GUIDES, guide_uri};

#[test]
fn every_bundled_example_passes_its_tests_and_validates_cleanly() {
    let mut client = mcp_client::Client::start(Path::new(env!("CARGO_BIN_EXE_valem")), &[]).unwrap();
    for (name, text) in EXAMPLES {
        let spec: Value = serde_json::from_str(text).unwrap();
        assert_eq!(spec["id"], *name);
        let answer = client.call("test_spec", json!({ "spec": spec })).unwrap();
        assert!(!answer.is_error, "{name}: {}", answer.body);
        let report = answer.body;
        assert_eq!(report["failed"], 0, "{name}: {report}");
        assert!(report["total"].as_u64().unwrap() > 0, "{name} has tests");
        let validation = client.call("validate_spec", json!({ "spec": spec })).unwrap().body;
        assert_eq!(validation, json!({ "valid": true, "errors": [], "warnings": [] }), "{name}");
    }
}

#[test]
fn guides_and_examples_are_served() {
    let mut client = mcp_client::Client::start(Path::new(env!("CARGO_BIN_EXE_valem")), &[]).unwrap();
    let listed = client.request("resources/list", json!({})).unwrap();
    let uris: Vec<&str> =
        listed["result"]["resources"].as_array().unwrap().iter().filter_map(|r| r["uri"].as_str()).collect();
    for guide in GUIDES {
        let uri = guide_uri(guide.name);
        assert!(uris.contains(&uri.as_str()), "{uri} is listed");
        let read = client.request("resources/read", json!({ "uri": uri })).unwrap();
        assert_eq!(read["result"]["contents"][0]["mimeType"], "text/markdown");
        assert!(read["result"]["contents"][0]["text"].as_str().unwrap().starts_with("# "));
    }
    for (name, text) in EXAMPLES {
        let uri = format!("valem://examples/{name}");
        assert!(uris.contains(&uri.as_str()), "{uri} is listed");
        let read = client.request("resources/read", json!({ "uri": uri })).unwrap();
        assert_eq!(read["result"]["contents"][0]["text"], *text);
    }
    assert_eq!(uris.len(), GUIDES.len() + EXAMPLES.len() + 2, "the guides, the examples and two schemas: {uris:?}");
    assert_eq!(GUIDES.len(), 4);
    let missing = client.request("resources/read", json!({ "uri": "valem://examples/no-such-example" })).unwrap();
    assert_eq!(missing["error"]["code"], -32002);
}

/// The two schema resources are the schemas the tools embed: the same properties, the same
/// definitions (which the tool lifts to its root).
#[test]
fn the_schema_resources_are_what_the_tools_embed() {
    let mut client = mcp_client::Client::start(Path::new(env!("CARGO_BIN_EXE_valem")), &[]).unwrap();
    let tools = client.request("tools/list", json!({})).unwrap();
    let tool = |name: &str| {
        tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap()["inputSchema"].clone()
    };
    for (uri, name, field) in [
        ("valem://schema/model-spec", "create_model", "spec"),
        ("valem://schema/spec-evolution", "evolve_spec", "evolution"),
    ] {
        let read = client.request("resources/read", json!({ "uri": uri })).unwrap();
        let served: Value = serde_json::from_str(read["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
        let embedded = tool(name);
        assert_eq!(embedded["properties"][field]["properties"], served["properties"], "{uri}");
        assert_eq!(embedded["properties"][field]["required"], served["required"], "{uri}");
        assert_eq!(embedded["$defs"], served["$defs"], "{uri}");
    }
}
