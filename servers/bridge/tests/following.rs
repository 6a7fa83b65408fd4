//! How the bridge's tools follow the hub's capabilities beyond the golden sessions: a collision
//! is logged with the names given, and a capability whose schema changes is served anew.

mod support;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;
use support::{BIN, Hub, Mcp, TOKEN, add_capability, bridge_args, config_copy};

#[test]
fn a_collision_is_logged_with_the_names_given() {
    let config = config_copy();
    add_capability(config.path(), "tool_risk", "echo");
    let hub = Hub::start(config.path(), 0);
    let mut bridge = Command::new(BIN)
        .args(["mcp", "--addr", &hub.addr, "--token", TOKEN])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = String::new();
    bridge.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert!(bridge.wait().unwrap().success());
    assert!(
        stderr.contains(
            "capability ids collide on the tool name tool_risk: serving \"tool.risk\" as tool_risk, \"tool_risk\" as tool_risk_2"
        ),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_capability_whose_schema_changes_is_served_anew() {
    let config = config_copy();
    let hub = Hub::start(config.path(), 0);
    let mut mcp = Mcp::start(&bridge_args(&hub.addr, &[])).await;
    std::fs::write(config.path().join("capabilities/tool.risk.yaml"), "id: tool.risk\nkind: echo\n").unwrap();
    assert!(mcp.notified("notifications/tools/list_changed", Duration::from_secs(10)).await);
    let (_, listed) = mcp.request("tools/list", json!({})).await;
    let risk =
        listed["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "tool_risk").cloned().unwrap();
    assert_eq!(risk["inputSchema"]["properties"], json!({ "text": { "type": "string" } }));
    let echoed = mcp.call("tool_risk", json!({ "text": "now an echo" })).await;
    assert_eq!(echoed["structuredContent"]["data"], json!({ "text": "now an echo" }));
}
