//! The golden command against a server that is not tooltable's: the official Python SDK's
//! MCPServer (FastMCP before mcp 2; tests/python/server.py), recorded from the SDK's own client
//! (tests/python/client.py) standing as the host, over stdio and Streamable HTTP, in both eras;
//! then replayed, changed, reviewed and accepted with the real `golden` binary.

#[path = "../../tests/support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use support::{Scratch, run_in, text};

const GOLDEN: &str = env!("CARGO_BIN_EXE_golden-sdk-tests");
/// A secret of the recorder's environment, which the client also sends and the server repeats.
const KEY_VARIABLE: &str = "GREETER_API_KEY";
const KEY: &str = "sk-golden-0123456789";
const BEARER: &str = "tok-golden-abcdef123456";
/// The server after a change: another description of `greet`.
const CHANGED: [(&str, &str); 1] = [("GREET_DESCRIPTION", "Greets a person.")];
/// How long a process may take to say where it listens (a bound, not a measure: Python starts
/// slowly on a loaded machine).
const STARTING: Duration = Duration::from_secs(120);

fn python() -> PathBuf {
    test_support::PYTHON_MCP.path()
}

fn script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python").join(name).display().to_string()
}

/// The Python server's stdio command line.
fn server() -> Vec<String> {
    vec![python().display().to_string(), script("server.py")]
}

/// `golden ARGS` in `dir` with `env`; its output, whatever its exit.
fn golden(dir: &Scratch, args: &[&str], env: &[(&str, &str)]) -> Output {
    let out = Command::new(GOLDEN).args(args).envs(env.iter().copied()).current_dir(dir.path()).output();
    out.expect("golden runs")
}

/// `golden replay FILE -- python server.py` with `env`.
fn replay_stdio(dir: &Scratch, file: &str, env: &[(&str, &str)]) -> Output {
    let mut args = vec!["replay", file, "--"];
    let server = server();
    args.extend(server.iter().map(String::as_str));
    golden(dir, &args, env)
}

/// The SDK client over stdio, in the legacy mode, greeting `name` through `golden record --out
/// FILE` in `dir`; the client starts the recorder as its server, with the client's environment
/// and `env` (a host's configured `env`). It must succeed.
fn record_stdio(dir: &Scratch, file: &str, name: &str, env: &[(&str, &str)]) {
    let session = dir.join(file).display().to_string();
    let mut record = vec!["stdio", "--name", name, "--", GOLDEN, "record", "--out", &session, "--"];
    let server = server();
    record.extend(server.iter().map(String::as_str));
    let out = Command::new(python())
        .arg(script("client.py"))
        .arg("legacy")
        .args(&record)
        .envs(env.iter().copied())
        .output()
        .expect("python runs");
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
}

/// The SDK client, in `mode`, with `args`; it must succeed.
fn client(mode: &str, args: &[&str]) {
    let out = Command::new(python()).arg(script("client.py")).arg(mode).args(args).output().expect("python runs");
    assert!(out.status.success(), "client.py {mode} {args:?}: {}{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).contains("\"tool\": \"add\""), "the client called add: {}", text(&out.stdout));
}

/// A child process killed when dropped, and the first URL its stderr names after `marker`.
struct Listening {
    child: Child,
    url: String,
}

impl Listening {
    fn start(command: &mut Command, marker: &str) -> Listening {
        let mut child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("the process starts");
        let stderr = child.stderr.take().expect("a stderr");
        let (tx, rx) = mpsc::channel();
        let wanted = marker.to_owned();
        std::thread::spawn(move || {
            // Reads on to the end, so the process never blocks on a full pipe.
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split_once(&wanted).map(|(_, rest)| rest) {
                    let _ = tx.send(rest.split_whitespace().next().unwrap_or_default().to_owned());
                }
            }
        });
        let url = rx.recv_timeout(STARTING).unwrap_or_else(|_| panic!("no `{marker}` line within {STARTING:?}"));
        Listening { child, url }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
#[cfg_attr(
    not(has_python_mcp),
    ignore = "needs the official MCP Python SDK: pip install mcp==2.3.0 (see test-support)"
)]
fn a_handshake_session_of_the_sdk_client_over_stdio_replays_and_a_changed_description_is_reviewed() {
    let dir = Scratch::new("python-stdio");
    record_stdio(&dir, "greet.session", KEY, &[(KEY_VARIABLE, KEY)]);
    let recorded = dir.read("greet.session");
    assert!(recorded.starts_with("# Recorded by golden record from mcp"), "{recorded}");
    assert!(recorded.contains("over stdio, revision 2025-11-25."), "{recorded}");
    assert!(recorded.contains("\"method\": \"initialize\""), "{recorded}");
    assert!(!recorded.contains(KEY) && recorded.contains("Hello, <REDACTED>!"), "the key is redacted:\n{recorded}");

    let out = replay_stdio(&dir, "greet.session", &[]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("every answer matches"));

    let out = replay_stdio(&dir, "greet.session", &CHANGED);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let diff = text(&out.stdout);
    assert!(diff.contains("-          \"description\": \"Greets someone by name.\","), "{diff}");
    assert!(diff.contains("+          \"description\": \"Greets a person.\","), "{diff}");
    assert!(dir.has("greet.session.new"));
    assert!(text(&out.stderr).contains("greet.session.new is pending (1 pending"), "{}", text(&out.stderr));

    let out = golden(&dir, &["accept"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!dir.has("greet.session.new"));
    assert!(replay_stdio(&dir, "greet.session", &CHANGED).status.success(), "accepted, the changed server matches");
    assert_eq!(replay_stdio(&dir, "greet.session", &[]).status.code(), Some(1), "and the old one no longer");
}

#[test]
#[cfg_attr(
    not(has_python_mcp),
    ignore = "needs the official MCP Python SDK: pip install mcp==2.3.0 (see test-support)"
)]
fn a_2026_07_28_session_of_the_sdk_client_over_http_replays_over_both_transports() {
    let dir = Scratch::new("python-http");
    let upstream =
        Listening::start(Command::new(python()).arg(script("server.py")).args(["http", "0"]), "Uvicorn running on ");
    let upstream_url = format!("{}/mcp", upstream.url);
    let session = dir.join("modern.session").display().to_string();
    let recorder = Listening::start(
        Command::new(GOLDEN)
            .args(["record", "--out", &session, "--listen", "127.0.0.1:0", "--upstream", &upstream_url])
            .env(KEY_VARIABLE, KEY),
        "listening on ",
    );
    client("auto", &["http", &recorder.url, "--name", KEY, "--bearer", BEARER]);
    drop(recorder);

    let recorded = dir.read("modern.session");
    assert!(recorded.contains("over HTTP, revision 2026-07-28."), "{recorded}");
    assert!(recorded.contains("\"method\": \"server/discover\""), "{recorded}");
    assert!(!recorded.contains("\"method\": \"initialize\""), "no handshake in this revision:\n{recorded}");
    assert!(!recorded.contains(KEY) && !recorded.contains(BEARER), "no secret is written:\n{recorded}");

    let out = golden(&dir, &["replay", "modern.session", "--url", &upstream_url], &[]);
    assert!(out.status.success(), "over HTTP: {}", text(&out.stdout));
    let out = replay_stdio(&dir, "modern.session", &[]);
    assert!(out.status.success(), "over stdio: {}", text(&out.stdout));
}

#[test]
#[cfg_attr(
    not(has_python_mcp),
    ignore = "needs the official MCP Python SDK: pip install mcp==2.3.0 (see test-support)"
)]
fn review_and_reject_take_what_replays_against_a_changed_server_left_pending() {
    let dir = Scratch::new("python-review");
    record_stdio(&dir, "a.session", "Ada", &[]);
    let recorded = dir.read("a.session");
    for name in ["b", "c"] {
        dir.write(&format!("{name}.session"), &recorded);
    }
    for name in ["a", "b", "c"] {
        let out = replay_stdio(&dir, &format!("{name}.session"), &CHANGED);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", text(&out.stdout));
        assert!(dir.has(&format!("{name}.session.new")), "{name}: what came back is pending");
    }

    // In file order: `a` accepted, `b` rejected, `c` skipped.
    let out = run_in(GOLDEN, &dir, &["review"], "a\nr\ns\n");
    let shown = text(&out.stdout);
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        assert!(shown.contains(&format!("({}/3) ./{name}.session.new: [a]ccept", i + 1)), "{shown}");
    }
    let changed = |sign: char, description: &str| {
        shown.lines().any(|l| l.starts_with(sign) && l.contains(&format!("\"description\": \"{description}\"")))
    };
    assert!(
        changed('-', "Greets someone by name.") && changed('+', "Greets a person."),
        "each diff is shown:\n{shown}"
    );
    assert!(shown.contains("1 accepted, 1 rejected, 1 skipped"), "{shown}");
    assert!(dir.read("a.session").contains("Greets a person.") && !dir.has("a.session.new"));
    assert!(dir.read("b.session") == recorded && !dir.has("b.session.new"));
    assert!(dir.read("c.session") == recorded && dir.has("c.session.new"), "a skipped change stays pending");
    assert!(replay_stdio(&dir, "a.session", &CHANGED).status.success(), "accepted, `a` is the changed server's");
    assert!(replay_stdio(&dir, "b.session", &[]).status.success(), "rejected, `b` is the server's as it was");

    let out = run_in(GOLDEN, &dir, &["reject"], "");
    assert!(text(&out.stdout).contains("rejected ./c.session.new"), "{}", text(&out.stdout));
    assert!(!dir.has("c.session.new"));
    assert_eq!(dir.read("c.session"), recorded);
    assert!(replay_stdio(&dir, "c.session", &[]).status.success());
    assert!(text(&run_in(GOLDEN, &dir, &["review"], "").stdout).contains("nothing pending in ."));
}
