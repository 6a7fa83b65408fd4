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
//! `GOLDEN_BLESS=1` records the answers; `DOCS_REGENERATE=1` rewrites the page's regions.

mod support;

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{Map, Value, json};
use support::fake_hub::FakeHub;
use support::{Hub, add_capability, bridge_args, config_copy, free_port, remove_capability};
use tooltable_golden::client::Client;
use tooltable_golden::harness::{bless, differences};
use tooltable_golden::placeholders::Placeholders;
use tooltable_golden::session::{Line, SessionFile};
use tooltable_golden::{BLESS, REGENERATE, docs, replay};

const SESSIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../golden-sessions/bridge");
const PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/servers/bridge.md");
const ALL: [&str; 11] = [
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
async fn run(file: &SessionFile) -> Vec<Vec<Value>> {
    let mut scene = Scene::new();
    let placeholders = Placeholders::default().literal("HUB", &scene.addr());
    let steps = file.steps();
    let mut actual = Vec::new();
    for (number, line) in &file.lines {
        match line {
            Line::Text(text) => {
                if let Some(directive) = text.strip_prefix("#! ") {
                    scene.direct(*number, directive);
                }
            }
            Line::Sent(_) => {
                let step = &steps[actual.len()];
                let client = scene.client.as_mut().unwrap_or_else(|| panic!("line {number}: no `#! bridge` yet"));
                let got = replay::run(client, std::slice::from_ref(step), &placeholders)
                    .await
                    .unwrap_or_else(|e| panic!("line {number}: {e}"));
                actual.extend(got);
            }
            Line::Received(_) => {}
        }
    }
    if let Some(client) = scene.client.take() {
        let _ = client.close().await;
    }
    actual
}

fn path(session: &str) -> PathBuf {
    PathBuf::from(SESSIONS).join(format!("{session}.session"))
}

fn load(session: &str) -> Result<SessionFile, String> {
    let path = path(session);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    SessionFile::parse(&text).map_err(|e| format!("{}:{}: {}", path.display(), e.line, e.message))
}

fn check(session: &str) {
    let file = load(session).unwrap_or_else(|e| panic!("{e}"));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let actual = runtime.block_on(run(&file));
    if std::env::var_os(BLESS).is_some() {
        std::fs::write(path(session), bless(&file, &actual)).unwrap();
        return;
    }
    let report = differences(&path(session), &file.steps(), &actual);
    assert!(
        report.is_empty(),
        "{report}\nIf the new answers are right, record them: {BLESS}=1 cargo test -p bridge --test golden"
    );
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
    stateless
);

#[test]
fn every_session_file_has_a_test() {
    let mut files: Vec<String> = std::fs::read_dir(SESSIONS)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().strip_suffix(".session").map(str::to_owned))
        .collect();
    files.sort();
    let mut listed: Vec<String> = ALL.iter().map(|s| (*s).to_owned()).collect();
    listed.sort();
    assert_eq!(files, listed);
}

/// The hub route each bridge tool forwards to, for the reference table's "Maps to" column.
fn forwarded_routes(tools: &[Value]) -> Map<String, Value> {
    let flow_routes: HashMap<&str, &str> = HashMap::from([
        ("jevalan_run_flow", "POST /v1/flows/{name}/run"),
        ("jevalan_list_flows", "GET /v1/flows"),
        ("jevalan_validate_flow", "POST /v1/flows/validate"),
        ("jevalan_try_draft", "POST /v1/drafts/try"),
    ]);
    tools
        .iter()
        .filter_map(|t| {
            let name = t["name"].as_str()?;
            let route = match flow_routes.get(name) {
                Some(route) => (*route).to_owned(),
                None => format!("POST /v1/capabilities/{}/call", t["title"].as_str()?),
            };
            Some((name.to_owned(), json!(route)))
        })
        .collect()
}

#[test]
fn docs_are_generated_from_the_sessions() {
    let listing = load("listing").unwrap();
    let tools: Vec<Value> = listing
        .steps()
        .iter()
        .filter(|s| s.sent["method"] == "tools/list")
        .flat_map(|s| s.received.iter().filter_map(|(_, v)| v["result"]["tools"].as_array().cloned()))
        .flatten()
        .collect();
    let routes = forwarded_routes(&tools);
    let session = |name: &str| load(name);
    let sources = docs::Sources { tools: &tools, routes: &routes, session: &session };
    let text = std::fs::read_to_string(PAGE).unwrap();
    let fresh = docs::regenerate(&text, &sources).unwrap_or_else(|e| panic!("{PAGE}: {e}"));
    if fresh == text {
        return;
    }
    if std::env::var_os(REGENERATE).is_some() {
        std::fs::write(PAGE, fresh).unwrap();
        return;
    }
    panic!(
        "{PAGE}: the generated regions are out of date; regenerate them: {REGENERATE}=1 cargo test -p bridge --test golden"
    );
}

/// Every tool the bridge listed in its recorded sessions, the hub's capabilities included, is a
/// valid MCP `Tool` of each revision: the sessions are replayed, so these are what it serves.
#[test]
fn every_listed_tool_is_a_valid_mcp_tool() {
    let mut tools = Vec::new();
    for session in ALL {
        let file = load(session).unwrap_or_else(|e| panic!("{e}"));
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
