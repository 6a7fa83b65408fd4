//! Each way a hub can fail, against a fake hub (or the reference hub, killed): the call is a
//! failed call whose `reason` and message say what happened, the bridge keeps serving, and it
//! recovers when the hub does.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::fake_hub::FakeHub;
use support::{Hub, Mcp, bridge_args, config_copy, free_port};

/// A failed call's `reason` and message.
fn failure(result: &Value) -> (String, String) {
    assert_eq!(result["isError"], true, "{result}");
    let text = |key: &str| result["structuredContent"][key].as_str().unwrap_or_default().to_owned();
    (text("reason"), text("error"))
}

async fn risk(mcp: &mut Mcp, command: &str) -> Value {
    mcp.call("tool_risk", json!({ "command": command })).await
}

#[tokio::test(flavor = "multi_thread")]
async fn garbage_a_500_and_an_answer_without_status_are_failed_calls_with_the_reason() {
    let fake = FakeHub::start(0);
    let mut mcp = Mcp::start(&bridge_args(&fake.addr, &[])).await;
    let hub = &fake.addr;
    let garbage = risk(&mut mcp, "garbage").await;
    assert_eq!(
        failure(&garbage),
        (
            "garbage".to_owned(),
            format!(
                "the hub at {hub} answered something that is not JSON: \"<html><body>Service Unavailable</body></html>\""
            )
        )
    );
    let failed = risk(&mut mcp, "fail").await;
    assert_eq!(
        failure(&failed),
        ("status".to_owned(), format!("the hub at {hub} failed (500 Internal Server Error): database is locked"))
    );
    assert_eq!(failed["structuredContent"]["status"], 500);
    let (reason, message) = failure(&risk(&mut mcp, "no-status").await);
    assert_eq!(reason, "garbage");
    assert!(message.contains("answered without a status of ok, abstain or error"), "{message}");
    let fine = risk(&mut mcp, "ls").await;
    assert_eq!(fine["isError"], false, "{fine}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hub_that_dies_mid_answer_is_a_failed_call_and_the_next_call_works() {
    let fake = FakeHub::start(0);
    let mut mcp = Mcp::start(&bridge_args(&fake.addr, &[])).await;
    let (reason, message) = failure(&risk(&mut mcp, "die").await);
    assert_eq!(reason, "closed", "{message}");
    assert!(
        message.starts_with(&format!("the hub at {} closed the connection before answering", fake.addr)),
        "{message}"
    );
    assert_eq!(risk(&mut mcp, "ls").await["isError"], false);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hub_slower_than_the_deadline_is_a_failed_call_and_the_next_call_works() {
    let fake = FakeHub::start(0);
    let mut mcp = Mcp::start(&bridge_args(&fake.addr, &["--deadline-ms", "1000"])).await;
    let slow = risk(&mut mcp, "slow").await;
    assert_eq!(
        failure(&slow),
        ("deadline".to_owned(), format!("the hub at {} did not answer within 1000 ms", fake.addr))
    );
    assert_eq!(risk(&mut mcp, "ls").await["isError"], false);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_absent_hub_is_a_failed_call_and_the_bridge_follows_it_when_it_comes() {
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let mut mcp = Mcp::start(&bridge_args(&addr, &[])).await;
    assert_eq!(
        mcp.tool_names().await,
        ["jevalan_run_flow", "jevalan_list_flows", "jevalan_validate_flow", "jevalan_try_draft"]
    );
    let (reason, message) = failure(&mcp.call("jevalan_list_flows", json!({})).await);
    assert_eq!(reason, "unreachable");
    assert!(message.starts_with(&format!("no hub answers at {addr}: ")), "{message}");
    let config = config_copy();
    let _hub = Hub::start(config.path(), port);
    // One notification per tool added (the table has no batch change).
    for _ in 0..2 {
        assert!(mcp.notified("notifications/tools/list_changed", Duration::from_secs(10)).await);
    }
    assert_eq!(risk(&mut mcp, "ls").await["structuredContent"]["data"]["decision"], "allow");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hub_killed_mid_call_is_a_failed_call_and_the_bridge_recovers_when_it_restarts() {
    let config = config_copy();
    let hub = Hub::start(config.path(), 0);
    let port: u16 = hub.addr.rsplit(':').next().unwrap().parse().unwrap();
    let mut mcp = Mcp::start(&bridge_args(&hub.addr, &[])).await;
    hub.kill_on_request("POST /v1/capabilities/{id}/call");
    let woken = mcp.call("agent_wakeup", json!({ "agent": "planner", "after_ms": 5000 })).await;
    assert_eq!(failure(&woken).0, "closed", "{woken}");
    hub.wait_killed();
    let down = risk(&mut mcp, "ls").await;
    assert_eq!(failure(&down).0, "unreachable", "{down}");
    let _again = Hub::start(config.path(), port);
    assert_eq!(risk(&mut mcp, "ls").await["isError"], false);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_token_is_named_as_the_problem() {
    let config = config_copy();
    let hub = Hub::start(config.path(), 0);
    let args: Vec<String> = ["--addr", &hub.addr, "--token", "not-the-token"].map(str::to_owned).to_vec();
    let mut mcp = Mcp::start(&args).await;
    let (reason, message) = failure(&mcp.call("jevalan_list_flows", json!({})).await);
    assert_eq!(reason, "unauthorized");
    assert!(message.contains("refused the token"), "{message}");
    assert!(!message.contains("not-the-token"), "{message}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hub_that_never_answers_does_not_hold_up_initialize() {
    // Connections are accepted by the kernel and never answered.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    let args: Vec<String> = ["--addr", &addr, "--token", support::TOKEN].map(str::to_owned).to_vec();
    // With the default 30 s deadline, initialize is still answered within the client's 20 s.
    let mut mcp = Mcp::start(&args).await;
    assert_eq!(mcp.tool_names().await.len(), 4);
    drop(silent);
}
