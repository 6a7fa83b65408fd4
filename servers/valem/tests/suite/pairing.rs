//! Browser mode (`valem mcp --url URL --browser`) against a sandbox the test serves: what is
//! listed in which mode, `pair_browser` from mint to `paired` (progress, the one URL
//! elicitation and its completion, a second call resuming the pairing, deny, expiry, a failing
//! mint, cancellation with `ping` answered meanwhile), revision 2026-07-28's rounds, and a model
//! call before pairing.

use std::path::Path;

use serde_json::{Value, json};
use valem::sandbox::SandboxLimits;

use crate::support::peer::Peer;
use crate::support::sandbox_host::Host;

fn valem() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_valem"))
}

/// `valem mcp --url HOST --browser`, the wait of one call `wait` seconds.
fn agent(host: &Host, wait: u64, capabilities: Value) -> Peer {
    let wait = wait.to_string();
    Peer::start(valem(), &["--url", &host.url, "--browser", "--pair-wait-secs", &wait], capabilities)
}

fn names(peer: &mut Peer) -> Vec<String> {
    let listed = peer.request(90, "tools/list", json!({}));
    listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

fn structured(result: &Value) -> &Value {
    &result["structuredContent"]
}

fn error_text(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{result}");
    let body: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    body["error"].as_str().unwrap().to_owned()
}

#[test]
fn pair_browser_is_listed_in_browser_mode_only() {
    let host = Host::start(SandboxLimits::DEFAULT);
    let mut paired = agent(&host, 1, json!({}));
    let listed = names(&mut paired);
    assert_eq!((listed.len(), listed.last().map(String::as_str)), (26, Some("pair_browser")));
    let mut plain = Peer::start(valem(), &["--url", &host.url], json!({}));
    let listed = names(&mut plain);
    assert!(listed.len() == 25 && !listed.contains(&"pair_browser".to_owned()), "{listed:?}");
    let create = |peer: &mut Peer| {
        let tools = peer.request(91, "tools/list", json!({}))["result"]["tools"].clone();
        tools.as_array().unwrap().iter().find(|t| t["name"] == "create_model").unwrap().clone()
    };
    let (mut paired_create, plain_create) = (create(&mut paired), create(&mut plain));
    let paired_description =
        paired_create["description"].as_str().unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(paired_description.contains("Paired with a browser: include a `viewDefinition`"), "{paired_description}");
    assert!(!plain_create["description"].as_str().unwrap().contains("Paired"));
    paired_create["description"] = plain_create["description"].clone();
    assert_eq!(paired_create, plain_create, "only the description differs");
    let mut embedded = Peer::start(valem(), &["--browser"], json!({}));
    assert!(!names(&mut embedded).contains(&"pair_browser".to_owned()));
    let warned = embedded.stderr.lock().unwrap().clone();
    assert!(warned.contains("--browser pairs with the sandbox of a valem serve"), "{warned}");
}

#[test]
fn the_paired_instructions_and_create_model_say_the_mode() {
    let host = Host::start(SandboxLimits::DEFAULT);
    let mut paired = Peer::spawn(valem(), &["--url", &host.url, "--browser"]);
    let init = paired.request(0, "initialize", json!({ "protocolVersion": "2025-11-25", "capabilities": {} }));
    let instructions = init["result"]["instructions"].as_str().unwrap();
    assert!(instructions.contains("call pair_browser first"), "{instructions}");
    let mut plain = Peer::spawn(valem(), &["--url", &host.url]);
    let init = plain.request(0, "initialize", json!({ "protocolVersion": "2025-11-25", "capabilities": {} }));
    assert!(!init["result"]["instructions"].as_str().unwrap().contains("pair_browser"));
}

#[test]
fn a_model_tool_before_pairing_is_the_not_paired_error() {
    let host = Host::start(SandboxLimits::DEFAULT);
    let mut peer = agent(&host, 1, json!({}));
    for (id, tool, arguments) in [
        (1, "list_models", json!({})),
        (2, "get_state", json!({ "id": "order" })),
        (3, "create_model", json!({ "spec": { "id": "order", "schema": {} } })),
    ] {
        assert_eq!(error_text(&peer.call(id, tool, arguments)), valem::browser::NOT_PAIRED, "{tool}");
    }
    let local = peer.call(4, "eval_expression", json!({ "expr": "1 + 1" }));
    assert_eq!(structured(&local)["result"], 2, "the authoring tools work before pairing: {local}");
}

#[test]
fn the_developer_approves_and_the_agent_is_paired_with_progress_and_one_elicitation() {
    let host = Host::start(SandboxLimits { pairing_interval_secs: 1, ..SandboxLimits::DEFAULT });
    let mut peer = agent(&host, 30, json!({ "elicitation": { "url": {} } }));
    let params = json!({ "name": "pair_browser", "arguments": {}, "_meta": { "progressToken": "p1" } });
    peer.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params }));
    let asked = peer.until(|m| m["method"] == "elicitation/create");
    let ask = &asked["params"];
    assert_eq!(ask["mode"], "url");
    let url = ask["url"].as_str().unwrap();
    let code = url.split("#c=").nth(1).expect("the link carries the code in its fragment").to_owned();
    assert_eq!(url, format!("{}/sandbox/verify#c={code}", host.url));
    assert_eq!(
        ask["message"],
        format!(
            "Open this link in your browser and click Approve to pair this agent with your Valem sandbox session. \
             The confirmation code shown there should read {code}."
        )
    );
    let elicitation_id = ask["elicitationId"].as_str().unwrap().to_owned();
    peer.send(json!({ "jsonrpc": "2.0", "id": asked["id"], "result": { "action": "accept" } }));
    let progress = peer.until(|m| m["method"] == "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "p1");
    assert_eq!(progress["params"]["total"], 30);
    let message = progress["params"]["message"].as_str().unwrap();
    assert!(message.starts_with("Waiting for browser approval (") && message.ends_with("/30s)"), "{message}");

    let (status, approved) = host.developer().approve(&code);
    assert_eq!(status, 200, "{approved}");
    let paired = peer.response(1)["result"].clone();
    let namespace = approved["namespaceId"].clone();
    assert_eq!(structured(&paired), &json!({ "status": "paired", "namespaceId": namespace }));
    let complete = peer.until(|m| m["method"] == "notifications/elicitation/complete");
    assert_eq!(complete["params"]["elicitationId"], elicitation_id.as_str());
    let elicitations = peer.seen.iter().filter(|m| m["method"] == "elicitation/create").count();
    assert_eq!(elicitations, 0, "one elicitation only");

    let again = peer.call(2, "pair_browser", json!({}));
    assert_eq!(structured(&again), &json!({ "status": "already_paired", "namespaceId": namespace }));
    assert_eq!(host.mints(), 1, "already_paired makes no request");
}

#[test]
fn no_elicitation_without_the_url_mode_and_a_second_call_resumes_the_pairing() {
    let host = Host::start(SandboxLimits { pairing_interval_secs: 1, ..SandboxLimits::DEFAULT });
    let mut peer = agent(&host, 1, json!({ "elicitation": {} }));
    let first = peer.call(1, "pair_browser", json!({}));
    let pending = structured(&first).clone();
    assert_eq!(pending["status"], "pending", "{first}");
    let code = pending["userCode"].as_str().unwrap();
    assert_eq!(pending["verificationUri"], format!("{}/sandbox/verify", host.url));
    assert_eq!(pending["verificationUriComplete"], format!("{}/sandbox/verify#c={code}", host.url));
    assert!((590..=600).contains(&pending["expiresInSec"].as_u64().unwrap()), "seconds left: {pending}");
    assert!(!peer.seen.iter().any(|m| m["method"] == "elicitation/create"), "a bare elicitation takes no URL");
    let second = peer.call(2, "pair_browser", json!({}));
    assert_eq!(structured(&second)["userCode"], code, "the same pairing");
    assert_eq!(host.mints(), 1, "no new mint");
    host.developer().approve(code);
    let third = peer.call(3, "pair_browser", json!({}));
    assert_eq!(structured(&third)["status"], "paired");
}

#[test]
fn a_denied_or_expired_pairing_fails_and_the_next_call_mints_afresh() {
    let host = Host::start(SandboxLimits { pairing_interval_secs: 1, ..SandboxLimits::DEFAULT });
    let mut peer = agent(&host, 1, json!({}));
    let code = structured(&peer.call(1, "pair_browser", json!({})))["userCode"].as_str().unwrap().to_owned();
    assert_eq!(host.developer().deny(&code).0, 200);
    let denied = peer.call(2, "pair_browser", json!({}));
    assert_eq!(error_text(&denied), "Pairing failed (access_denied) — call pair_browser again for a fresh link.");
    let fresh = peer.call(3, "pair_browser", json!({}));
    assert_eq!(structured(&fresh)["status"], "pending");
    assert_eq!(host.mints(), 2, "the denied pairing was dropped");
    host.later(600);
    let expired = peer.call(4, "pair_browser", json!({}));
    assert_eq!(error_text(&expired), "Pairing failed (expired_token) — call pair_browser again for a fresh link.");
}

#[test]
fn a_failing_mint_says_the_status_and_why() {
    let no_sandbox = Host::start(SandboxLimits::DEFAULT);
    let mut peer = Peer::start(valem(), &["--url", &format!("{}/elsewhere", no_sandbox.url), "--browser"], json!({}));
    let refused = peer.call(1, "pair_browser", json!({}));
    assert!(error_text(&refused).starts_with("HTTP 404 — it refused the pairing request"), "{refused}");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let mut peer = Peer::start(valem(), &["--url", &url, "--browser"], json!({}));
    let unreachable = error_text(&peer.call(1, "pair_browser", json!({})));
    assert!(
        unreachable.starts_with(&format!("Cannot reach {url}")) && unreachable.contains("unreachable or starting"),
        "{unreachable}"
    );
}

#[test]
fn a_cancelled_wait_answers_nothing_keeps_the_pairing_and_ping_is_answered_meanwhile() {
    let host = Host::start(SandboxLimits { pairing_interval_secs: 1, ..SandboxLimits::DEFAULT });
    // Each call waits 5 s: the cancelled one, had it gone on, would answer before the next.
    let mut peer = agent(&host, 5, json!({}));
    let params = json!({ "name": "pair_browser", "arguments": {}, "_meta": { "progressToken": 7 } });
    peer.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params }));
    peer.until(|m| m["method"] == "notifications/progress");
    assert_eq!(peer.request(2, "ping", json!({}))["result"], json!({}), "answered while the wait goes on");
    peer.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 1 } }));
    let resumed = peer.call(3, "pair_browser", json!({}));
    assert!(!peer.seen.iter().any(|m| m["id"] == 1 && m.get("method").is_none()), "the cancelled call answered");
    assert_eq!(structured(&resumed)["status"], "pending", "{resumed}");
    assert_eq!(host.mints(), 1, "the pending pairing was kept");
}

#[test]
fn under_the_stateless_revision_the_link_comes_in_an_input_required_round() {
    let host = Host::start(SandboxLimits { pairing_interval_secs: 1, ..SandboxLimits::DEFAULT });
    let mut peer = Peer::spawn(valem(), &["--url", &host.url, "--browser", "--pair-wait-secs", "30"]);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "url": {} } },
        "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "1" },
    });
    let first = peer.request(1, "tools/call", json!({ "name": "pair_browser", "arguments": {}, "_meta": meta }));
    let round = &first["result"];
    assert_eq!(round["resultType"], "input_required", "{first}");
    let (key, question) = round["inputRequests"].as_object().unwrap().iter().next().unwrap();
    assert_eq!(
        (question["method"].clone(), question["params"]["mode"].clone()),
        (json!("elicitation/create"), json!("url"))
    );
    let url = question["params"]["url"].as_str().unwrap();
    let code = url.split("#c=").nth(1).unwrap().to_owned();
    host.developer().approve(&code);
    let retry = json!({
        "name": "pair_browser", "arguments": {}, "_meta": meta,
        "inputResponses": { key.clone(): { "action": "accept" } },
        "requestState": round["requestState"],
    });
    let second = peer.request(2, "tools/call", retry);
    assert_eq!(second["result"]["resultType"], "complete", "{second}");
    assert_eq!(second["result"]["structuredContent"]["status"], "paired");
    assert_eq!(host.mints(), 1, "the retry resumed the pairing");
}
