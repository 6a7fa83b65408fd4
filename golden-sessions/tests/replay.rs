//! `golden replay` against a stdio server of a few lines of shell that logs unasked, as a real
//! server logs its readiness: a session compares the notifications it lists, in the step that
//! lists them, and the others only when it asks for them (`#! notifications`); a script of `→`
//! lines not yet recorded fails and leaves what the server answered pending.

mod support;

use std::process::{Command, Output};

use support::{Scratch, text};
use tooltable_golden::session::{Line, SessionFile};

const GOLDEN: &str = env!("CARGO_BIN_EXE_golden");

/// The server: answers `initialize` and `ping`, logs `ready: $1 tools` after
/// `notifications/initialized` (its count of tools is its first argument) and logs again before
/// it answers a ping.
const SERVER: &str = r#"while read -r line; do
  case "$line" in
    *'"method":"initialize"'*) echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{}},"serverInfo":{"name":"sh","version":"1"}}}' ;;
    *'"method":"notifications/initialized"'*) echo '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"sh ready: '"$1"' tools"}}' ;;
    *'"method":"ping"'*) echo '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"answering a ping"}}'; echo '{"jsonrpc":"2.0","id":2,"result":{}}' ;;
  esac
done"#;

/// The handshake as the server answers it; the client's `notifications/initialized` last.
const HANDSHAKE: &str = r#"→ {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "golden", "version": "1"}}}
← {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {"logging": {}}, "serverInfo": {"name": "sh", "version": "1"}}}
→ {"jsonrpc": "2.0", "method": "notifications/initialized"}
"#;
const READY_3: &str = r#"← {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "sh ready: 3 tools"}}
"#;
const PING: &str = r#"→ {"jsonrpc": "2.0", "id": 2, "method": "ping"}
← {"jsonrpc": "2.0", "id": 2, "result": {}}
"#;
const PING_LOG: &str = r#"← {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "debug", "data": "answering a ping"}}
"#;

/// `golden replay NAME.session` in `dir` against the server with `tools` tools.
fn replay(dir: &Scratch, name: &str, tools: &str) -> Output {
    let file = format!("{name}.session");
    let args = ["replay", &file, "--", "sh", "-c", SERVER, "sh", tools];
    Command::new(GOLDEN).args(args).current_dir(dir.path()).output().expect("golden runs")
}

fn stdout(out: &Output) -> String {
    text(&out.stdout)
}

/// The line of a diff (`sign` `-` or `+`) that shows a log's params.
fn log_params(sign: char, level: &str, data: &str) -> String {
    format!("{sign}    \"params\": {{\"level\": \"{level}\", \"data\": \"{data}\"}}\n")
}

/// `dir` with the session `name` holding `parts` in order.
fn session(dir: &Scratch, name: &str, parts: &[&str]) {
    dir.write(&format!("{name}.session"), &parts.concat());
}

#[test]
fn a_log_the_session_does_not_list_is_not_compared() {
    let dir = Scratch::new("replay-unlisted");
    session(&dir, "handshake", &[HANDSHAKE, PING]);
    for tools in ["3", "4"] {
        let out = replay(&dir, "handshake", tools);
        assert!(out.status.success(), "with {tools} tools: {}", stdout(&out));
        assert!(stdout(&out).contains("every answer matches"), "{}", stdout(&out));
    }
    assert!(!dir.has("handshake.session.new"));
}

#[test]
fn a_step_compares_the_notifications_it_lists_and_no_others() {
    let dir = Scratch::new("replay-listed");
    // The ready log is listed after `notifications/initialized`; the ping's log is listed nowhere.
    session(&dir, "ready", &[HANDSHAKE, READY_3, PING]);
    let out = replay(&dir, "ready", "3");
    assert!(out.status.success(), "the ping's log is not compared: {}", stdout(&out));
    let out = replay(&dir, "ready", "4");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let diff = stdout(&out);
    assert!(diff.contains(&log_params('-', "info", "sh ready: 3 tools")), "{diff}");
    assert!(diff.contains(&log_params('+', "info", "sh ready: 4 tools")), "{diff}");
    assert!(dir.read("ready.session.new").contains("sh ready: 4 tools"), "what came back is pending");
}

#[test]
fn a_session_that_asks_for_notifications_compares_every_one() {
    let dir = Scratch::new("replay-asked");
    let asked = "#! notifications notifications/message\n";
    session(&dir, "asked", &[asked, HANDSHAKE, READY_3, PING, PING_LOG]);
    let out = replay(&dir, "asked", "3");
    assert!(out.status.success(), "{}", stdout(&out));
    let out = replay(&dir, "asked", "4");
    assert_eq!(out.status.code(), Some(1), "a log that differs fails: {}", stdout(&out));
    assert!(stdout(&out).contains(&log_params('+', "info", "sh ready: 4 tools")), "{}", stdout(&out));

    // Asked for, the ping's log is compared where the session does not hold it.
    session(&dir, "unheld", &[asked, HANDSHAKE, READY_3, PING]);
    let out = replay(&dir, "unheld", "3");
    assert_eq!(out.status.code(), Some(1), "an unexpected log fails: {}", stdout(&out));
    assert!(stdout(&out).contains(&log_params('+', "debug", "answering a ping")), "{}", stdout(&out));
    assert!(dir.read("unheld.session.new").contains("answering a ping"));

    // `*` asks for every method.
    session(&dir, "every", &["#! notifications *\n", HANDSHAKE, PING]);
    assert_eq!(replay(&dir, "every", "3").status.code(), Some(1), "both logs are compared");
}

#[test]
fn a_script_not_yet_recorded_fails_and_leaves_what_the_server_answered_pending() {
    let dir = Scratch::new("replay-script");
    let script = |text: &str| text.lines().filter(|l| l.starts_with('→')).map(|l| format!("{l}\n")).collect::<String>();
    let sent = format!("# A handshake and a ping.\n{}{}", script(HANDSHAKE), script(PING));
    dir.write("script.session", &sent);
    let out = replay(&dir, "script", "3");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("script.session: no answer is recorded yet"), "{}", stdout(&out));
    assert!(stdout(&out).contains("`golden accept script.session.new` takes it"), "{}", stdout(&out));
    assert_eq!(dir.read("script.session"), sent, "the script is as it was");
    // What the server answered, the unasked log left out.
    let expected = format!("# A handshake and a ping.\n{HANDSHAKE}{PING}");
    let pending = dir.read("script.session.new");
    let entries = |text: &str| -> Vec<Line> {
        SessionFile::parse(text).expect("a session").lines.into_iter().map(|(_, line)| line).collect()
    };
    assert_eq!(entries(&pending), entries(&expected), "{pending}");

    let accepted = Command::new(GOLDEN).args(["accept"]).current_dir(dir.path()).output().expect("golden runs");
    assert!(accepted.status.success(), "{}", stdout(&accepted));
    assert!(replay(&dir, "script", "4").status.success(), "accepted, the script is a transcript");
}
