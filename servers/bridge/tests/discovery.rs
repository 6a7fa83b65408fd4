//! Finding the hub through the discovery file: the hub writes `daemon.json` once listening, the
//! bridge started without `--addr` reads it from `$JEVALAN_HOME`, and `--addr` wins over it.

mod support;

use serde_json::json;
use support::fake_hub::FakeHub;
use support::{BIN, Mcp, TOKEN, config_copy};

#[tokio::test(flavor = "multi_thread")]
async fn the_bridge_finds_the_hub_through_the_discovery_file_and_addr_wins() {
    let config = config_copy();
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("daemon.json");
    let mut hub = std::process::Command::new(BIN)
        .args(["hub", "--config"])
        .arg(config.path())
        .args(["--listen", "127.0.0.1:0", "--token", TOKEN, "--discovery-file"])
        .arg(&file)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..200 {
        if file.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    let discovered: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let addr = discovered["addr"].as_str().unwrap().to_owned();

    // SAFETY: set before any thread of this test reads the environment; the bridge inherits it.
    unsafe { std::env::set_var("JEVALAN_HOME", home.path()) };
    let mut mcp = Mcp::start(&["--token".to_owned(), TOKEN.to_owned()]).await;
    let flows = mcp.call("jevalan_list_flows", json!({})).await;
    assert_eq!(flows["structuredContent"]["flows"][0]["name"], "guard-command", "{flows}");

    let fake = FakeHub::start(0);
    let mut pinned = Mcp::start(&["--addr".to_owned(), fake.addr.clone()]).await;
    let risk = pinned.call("tool_risk", json!({ "command": "ls" })).await;
    assert_eq!(risk["structuredContent"]["data"], json!({ "decision": "allow" }), "the fake hub answered: {risk}");
    assert_ne!(fake.addr, addr);

    let _ = hub.kill();
    let _ = hub.wait();
}
