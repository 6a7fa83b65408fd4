//! The token appears nowhere: not on the bridge's stdout (results and errors), not on its stderr
//! (logs at the most verbose level), not in `--help`, not in what a hub echoes back, and not in
//! the hub's own output, whether it was given by `--token` or `JEVALAN_TOKEN`, right or wrong.

mod support;

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::fake_hub::FakeHub;
use support::{BIN, Hub, TOKEN, config_copy};

/// Every kind of call: listing, each capability status, each flow tool, refusals and failures.
fn requests() -> Vec<Value> {
    let call = |name: &str, arguments: Value| json!({ "method": "tools/call", "params": { "name": name, "arguments": arguments } });
    let draft = "name: d\nsteps: [{ id: a, call: tool.risk, input: { command: $state.c } }]\n";
    let mut all = vec![
        json!({ "method": "initialize", "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } }),
        json!({ "method": "tools/list" }),
        call("tool_risk", json!({ "command": "ls" })),
        call("tool_risk", json!({ "command": "" })),
        call("tool_risk", json!({ "command": "echo 'x" })),
        call("tool_risk", json!({ "command": "echo-auth" })),
        call("tool_risk", json!({ "command": "garbage" })),
        call("tool_risk", json!({ "command": "fail" })),
        call("tool_risk", json!({})),
        call("agent_wakeup", json!({ "agent": "nobody" })),
        call("jevalan_list_flows", json!({})),
        call("jevalan_run_flow", json!({ "name": "guard-command", "state": { "command": "rm -rf /" } })),
        call("jevalan_run_flow", json!({ "name": "missing" })),
        call("jevalan_validate_flow", json!({ "yaml": "name: [" })),
        call("jevalan_try_draft", json!({ "yaml": draft, "state": { "c": "ls" } })),
        call("jevalan_try_draft", json!({ "yaml": draft, "transport": "live" })),
        call("jevalan_try_draft", json!({ "yaml": "nonsense: true" })),
    ];
    for (id, r) in all.iter_mut().enumerate() {
        r["jsonrpc"] = json!("2.0");
        r["id"] = json!(id + 1);
    }
    all
}

/// Runs `bridge mcp ARGS` with an environment, sends every request, waits for every answer, and
/// gives stdout and stderr.
fn run_bridge(args: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let mut child = Command::new(BIN)
        .arg("mcp")
        .args(args)
        .envs(env.iter().copied())
        .env("RUST_LOG", "trace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let collect = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let out = collect(Box::new(child.stdout.take().unwrap()));
    let err = collect(Box::new(child.stderr.take().unwrap()));
    let mut stdin = child.stdin.take().unwrap();
    let requests = requests();
    for r in &requests {
        writeln!(stdin, "{r}").unwrap();
    }
    // Give the calls time to be answered before closing stdin (the bridge then drains them).
    let start = Instant::now();
    std::thread::sleep(Duration::from_millis(500));
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "the bridge exits cleanly at the end of input ({status})");
    assert!(start.elapsed() < Duration::from_secs(30));
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    let answered = out.lines().filter(|l| l.contains("\"result\"") || l.contains("\"error\"")).count();
    assert!(answered >= requests.len(), "every request is answered:\n{out}");
    (out, err)
}

fn assert_absent(secret: &str, what: &str, text: &str) {
    assert!(!text.contains(secret), "{what} shows the token:\n{text}");
}

#[test]
fn the_token_appears_nowhere() {
    let config = config_copy();
    let hub = Hub::start(config.path(), 0);
    let fake = FakeHub::start(0);
    for addr in [hub.addr.as_str(), fake.addr.as_str()] {
        let (out, err) = run_bridge(&["--addr", addr, "--token", TOKEN], &[]);
        assert!(out.contains("\"isError\":true") && out.contains("\"isError\":false"), "{out}");
        assert_absent(TOKEN, "stdout", &out);
        assert_absent(TOKEN, "stderr", &err);
        let (out, err) = run_bridge(&["--addr", addr], &[("JEVALAN_TOKEN", TOKEN)]);
        assert_absent(TOKEN, "stdout (token from the environment)", &out);
        assert_absent(TOKEN, "stderr (token from the environment)", &err);
    }
    // The fake hub echoed the Authorization header back: the bridge showed it redacted.
    let (out, _) = run_bridge(&["--addr", &fake.addr, "--token", TOKEN], &[]);
    assert!(out.contains("Bearer <redacted>"), "{out}");
    // A wrong token is a secret too.
    let wrong = "wrong-token-5b2e";
    let (out, err) = run_bridge(&["--addr", &hub.addr, "--token", wrong], &[]);
    assert!(out.contains("refused the token"), "{out}");
    assert_absent(wrong, "stdout (wrong token)", &out);
    assert_absent(wrong, "stderr (wrong token)", &err);
    // With no hub at all.
    hub.kill();
    let (out, err) = run_bridge(&["--addr", &hub.addr, "--token", TOKEN], &[]);
    assert!(out.contains("unreachable"), "{out}");
    assert_absent(TOKEN, "stdout (no hub)", &out);
    assert_absent(TOKEN, "stderr (no hub)", &err);
    assert_absent(TOKEN, "the hub's stderr", &hub.stderr.lock().unwrap());
}

#[test]
fn help_never_shows_the_token() {
    for args in [&["--help"][..], &["mcp", "--help"], &["hub", "--help"], &["mcp", "--bogus"]] {
        let out = Command::new(BIN).args(args).env("JEVALAN_TOKEN", TOKEN).output().unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(!text.is_empty());
        assert_absent(TOKEN, &format!("bridge {args:?}"), &text);
    }
}
