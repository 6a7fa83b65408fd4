//! The recorded sessions in golden-sessions/bridge, replayed over stdio against the bridge and a
//! hub the test starts, and the docs page generated from them.
//!
//! The bridge serves stdio only (it opens no port), and a session needs things done between its
//! messages (a hub started, killed, its configuration changed), so sessions carry directives the
//! tooltable-golden harness does not know: comment lines `#! WHAT ARGS`, run when reached:
//!
//! - `#! hub`: the reference hub over a fresh copy of `servers/bridge/examples/hub`, on the
//!   session's port (`<HUB>` in the transcript); again after `kill-hub`, same port and folder
//! - `#! fake-hub`: the fake hub of `tests/support/fake_hub.rs` on that port
//! - `#! bridge ARGS..`: `bridge mcp --addr <HUB> --token .. --poll-ms 50 ARGS..`
//! - `#! add-capability ID KIND`, `#! remove-capability ID`: a file of the hub's `capabilities/`
//! - `#! kill-hub`, `#! kill-hub-on METHOD TEMPLATE`: the reference hub killed now, or once it has
//!   routed that request; `#! hub-gone` waits until that kill has finished
//!
//! (`#! notifications ...` is the harness's own.) A session that differs fails with its diff and
//! leaves what came back in `NAME.session.new` for `golden accept`; `GOLDEN_BLESS=1` records the
//! answers; `DOCS_REGENERATE=1` rewrites the page's regions, which golden-sessions/bridge/golden.json
//! names with the route each tool forwards to.

mod support;

use std::path::PathBuf;

use serde_json::Value;
use support::fake_hub::FakeHub;
use support::{Hub, add_capability, bridge_args, config_copy, free_port, remove_capability};
use tooltable_golden::BLESS;
use tooltable_golden::client::Client;
use tooltable_golden::config::Config;
use tooltable_golden::harness::{self, bless, settle};
use tooltable_golden::placeholders::Placeholders;
use tooltable_golden::replay::{NOTIFICATIONS_DIRECTIVE, Replayer, Verdict};
use tooltable_golden::session::{Line, SessionFile};

const SESSIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../golden-sessions/bridge");
const ALL: [&str; 12] = [
    "listing",
    "collision",
    "capabilities",
    "flows",
    "allow_live",
    "reload",
    "hub_absent",
    "hub_killed",
    "hub_slow",
    "hub_faults",
    "stateless",
    "from_python_sdk",
];

/// What one session runs against.
struct Scene {
    port: u16,
    config: tempfile::TempDir,
    hub: Option<Hub>,
    fake: Option<FakeHub>,
    client: Option<Client>,
}

impl Scene {
    fn new() -> Scene {
        Scene { port: free_port(), config: config_copy(), hub: None, fake: None, client: None }
    }

    fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn direct(&mut self, line: usize, directive: &str) {
        let words: Vec<&str> = directive.split_whitespace().collect();
        match words.as_slice() {
            ["hub"] => self.hub = Some(Hub::start(self.config.path(), self.port)),
            ["fake-hub"] => self.fake = Some(FakeHub::start(self.port)),
            ["bridge", extra @ ..] => {
                let args = bridge_args(&self.addr(), extra);
                let mut all = vec!["mcp".to_owned()];
                all.extend(args);
                let all: Vec<&str> = all.iter().map(String::as_str).collect();
                let stdio =
                    tooltable_golden::client::StdioClient::spawn(support::BIN, &all).expect("the bridge starts");
                self.client = Some(Client::Stdio(stdio));
            }
            ["add-capability", id, kind] => add_capability(self.config.path(), id, kind),
            ["remove-capability", id] => remove_capability(self.config.path(), id),
            ["kill-hub"] => self.hub.as_ref().expect("a hub").kill(),
            ["hub-gone"] => self.hub.as_ref().expect("a hub").wait_killed(),
            ["kill-hub-on", method, path] => {
                self.hub.as_ref().expect("a hub").kill_on_request(&format!("{method} {path}"))
            }
            _ => panic!("line {line}: unknown directive `#! {directive}`"),
        }
    }
}

/// Runs a session: its directives in order, each message sent and what came back collected.
async fn run(file: &SessionFile) -> Verdict {
    let mut scene = Scene::new();
    let placeholders = Placeholders::standard().literal("HUB", &scene.addr());
    let mut replay = Replayer::new(file, &placeholders);
    for (number, line) in &file.lines {
        match line {
            Line::Text(text) => {
                if let Some(directive) = text.strip_prefix("#! ")
                    && !text.starts_with(NOTIFICATIONS_DIRECTIVE)
                {
                    scene.direct(*number, directive);
                }
            }
            Line::Sent(_) => {
                let client = scene.client.as_mut().unwrap_or_else(|| panic!("line {number}: no `#! bridge` yet"));
                replay.next(client).await.unwrap_or_else(|e| panic!("line {number}: {e}"));
            }
            Line::Received(_) => {}
        }
    }
    if let Some(client) = scene.client.take() {
        let _ = client.close().await;
    }
    replay.finish()
}

fn path(session: &str) -> PathBuf {
    PathBuf::from(SESSIONS).join(format!("{session}.session")).canonicalize().expect("the session exists")
}

fn load(session: &str) -> SessionFile {
    SessionFile::load(&path(session)).unwrap_or_else(|e| panic!("{e}"))
}

fn check(session: &str) {
    let mut file = load(session);
    let runtime = harness::runtime();
    if std::env::var_os(BLESS).is_some() {
        file = bless(&path(session), &file, &runtime.block_on(run(&file)));
    }
    let verdict = runtime.block_on(run(&file));
    let command = format!("{BLESS}=1 cargo test -p bridge --test golden");
    settle(&path(session), &file, &[("stdio", verdict)], &format!("{command} {session}"), &command);
}

macro_rules! sessions {
    ($($name:ident),*) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*
    };
}

sessions!(
    listing,
    collision,
    capabilities,
    flows,
    allow_live,
    reload,
    hub_absent,
    hub_killed,
    hub_slow,
    hub_faults,
    stateless,
    from_python_sdk
);

#[test]
fn every_session_file_has_a_test() {
    let problems = harness::unlisted(&PathBuf::from(SESSIONS), &ALL, "add `{stem}` to ALL and sessions!");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The page's tool tables list the tools of the listing session, each with the hub route
/// golden.json gives it: a flow tool its flow route, a capability's tool the call of that
/// capability (its id, the tool's title).
#[test]
fn each_listed_tool_maps_to_its_hub_route() {
    let config = Config::load(&PathBuf::from(SESSIONS)).unwrap_or_else(|e| panic!("{e}"));
    let tools = tooltable_golden::docs::render::listed_tools(&load("listing"));
    assert!(tools.len() > 4, "the listing lists the flow tools and the hub's capabilities");
    for tool in &tools {
        let name = tool["name"].as_str().unwrap_or_default();
        let route = config.routes.get(name).and_then(Value::as_str);
        let expected = match name.strip_prefix("jevalan_") {
            Some(_) => route.filter(|r| r.contains(" /v1/flows") || r.contains(" /v1/drafts")),
            None => {
                route.filter(|r| *r == format!("POST /v1/capabilities/{}/call", tool["title"].as_str().unwrap_or("?")))
            }
        };
        assert!(expected.is_some(), "golden.json gives {name} the route {route:?}");
    }
}

#[test]
fn docs_are_generated_from_the_sessions() {
    harness::check_session_docs(&PathBuf::from(SESSIONS));
}

/// Every tool the bridge listed in its recorded sessions, the hub's capabilities included, is a
/// valid MCP `Tool` of each revision: the sessions are replayed, so these are what it serves.
#[test]
fn every_listed_tool_is_a_valid_mcp_tool() {
    let mut tools = Vec::new();
    for session in ALL {
        let file = load(session);
        for (_, line) in &file.lines {
            if let Line::Received(v) = line
                && let Some(listed) = v.pointer("/result/tools").and_then(Value::as_array)
            {
                tools.extend(listed.iter().cloned());
            }
        }
    }
    assert!(tools.len() > 4, "the sessions list the flow tools and the hub's capabilities");
    let problems = tooltable_golden::mcp_schema::tool_problems(&tools).unwrap_or_else(|e| panic!("{e}"));
    assert!(problems.is_empty(), "descriptors the MCP schema rejects:\n{}", problems.join("\n"));
}
