//! The reference hub's HTTP API as `docs/servers/bridge.md` documents it: the routes the page
//! lists are the routes the hub serves, the token is required, and the answers have the
//! documented shapes.

mod support;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use support::{Hub, config_copy, http};

const PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/servers/bridge.md");

fn json_of(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

#[test]
fn the_page_lists_exactly_the_routes_the_hub_serves() {
    let config = config_copy();
    let hub = Hub::start(config.path(), 0);
    let (status, body) = http(&hub.addr, "GET", "/openapi.json", "");
    assert_eq!(status, 200);
    let openapi = json_of(&body);
    let served: BTreeSet<String> = openapi["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, item)| item.as_object().unwrap().keys().map(move |m| format!("{} {path}", m.to_uppercase())))
        .collect();
    let page = std::fs::read_to_string(PAGE).unwrap();
    let section = page.split("## The hub's HTTP API").nth(1).unwrap().split("\n## ").next().unwrap();
    let documented: BTreeSet<String> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_owned)
        .collect();
    assert_eq!(documented, served);
}

#[test]
fn the_hub_answers_with_the_documented_shapes() {
    let config = config_copy();
    let hub = Hub::start(config.path(), 0);
    let addr = hub.addr.as_str();
    let listing = json_of(&http(addr, "GET", "/v1/capabilities", "").1);
    assert_eq!(listing["revision"], 1);
    let ids: Vec<&str> = listing["capabilities"].as_array().unwrap().iter().filter_map(|c| c["id"].as_str()).collect();
    assert_eq!(ids, ["agent.wakeup", "tool.risk"]);
    assert_eq!(listing["capabilities"][1]["input_schema"]["type"], "object");

    let (status, body) = http(addr, "POST", "/v1/capabilities/tool.risk/call", r#"{"command":"rm -rf /"}"#);
    assert_eq!((status, json_of(&body)["data"]["decision"].clone()), (200, json!("deny")));
    let (status, body) = http(addr, "POST", "/v1/capabilities/no.such/call", "{}");
    assert_eq!((status, json_of(&body)["error"].clone()), (404, json!("no capability \"no.such\" is loaded")));

    let (status, body) = http(addr, "POST", "/v1/drafts/try", r#"{"yaml":"name: d\nsteps: ["}"#);
    let invalid = json_of(&body);
    assert_eq!(status, 422, "{body}");
    assert_eq!((invalid["line"].clone(), invalid["column"].clone()), (json!(3), json!(1)), "{body}");

    let (status, body) = http(addr, "POST", "/v1/flows/validate", r#"{"yaml":"name: d\nsteps: ["}"#);
    assert_eq!((status, json_of(&body)["ok"].clone()), (200, json!(false)));

    // Nothing writes flows: no route takes a flow to save, change or delete.
    for (method, path) in
        [("PUT", "/v1/flows/guard-command"), ("DELETE", "/v1/flows/guard-command"), ("POST", "/v1/flows")]
    {
        let (status, _) = http(addr, method, path, "{}");
        assert!(status == 404 || status == 405, "{method} {path}: {status}");
    }
}

#[test]
fn the_hub_refuses_a_request_without_its_token() {
    use std::io::{Read, Write};
    let config = config_copy();
    let hub = Hub::start(config.path(), 0);
    let mut stream = std::net::TcpStream::connect(&hub.addr).unwrap();
    let request = format!("GET /v1/capabilities HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", hub.addr);
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(answer.to_ascii_lowercase().contains("www-authenticate: bearer"), "{answer}");
}
