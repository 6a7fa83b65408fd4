//! The test harness a server crate calls: every session file in its folder replayed against a
//! fresh server over stdio and over HTTP, a readable diff on a mismatch, and re-recording with
//! `GOLDEN_BLESS=1`.
//!
//! ```ignore
//! fn golden() -> Golden { Golden::new(env!("CARGO_BIN_EXE_my-server"), "../../golden-sessions/my-server") }
//! tooltable_golden::golden_tests!(golden(), [handshake, tools, resources]);
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::client::Client;
use crate::docs;
use crate::placeholders::Placeholders;
use crate::process;
use crate::replay;
use crate::session::{Line, SessionFile, Step};

/// The environment variable that re-records the `←` lines instead of comparing them.
pub const BLESS: &str = "GOLDEN_BLESS";
/// The environment variable that rewrites docs pages' generated regions instead of comparing them.
pub const REGENERATE: &str = "DOCS_REGENERATE";

/// The sessions of one server.
pub struct Golden {
    bin: String,
    dir: PathBuf,
    args: Vec<String>,
    placeholders: Placeholders,
    /// Tools whose inputSchema may compose at its root (a fixture a conformance suite requires).
    root_composition: Vec<String>,
}

/// Over which transport a session runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http,
}

impl Golden {
    /// The server binary and its folder of sessions. `golden.json` in the folder, when present,
    /// declares the server's extra arguments, its pattern placeholders and the tools allowed a
    /// root composition: `{"args": ["--root", "<ROOT>"], "patterns": {"TIMESTAMP": "\\d{4}-..."},
    /// "rootComposition": ["fixture_tool"]}`.
    pub fn new(bin: &str, dir: impl AsRef<Path>) -> Self {
        let dir = dir.as_ref().to_path_buf();
        let config: Value = std::fs::read_to_string(dir.join("golden.json"))
            .ok()
            .map(|text| serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}/golden.json: {e}", dir.display())))
            .unwrap_or_default();
        let strings = |key: &str| -> Vec<String> {
            config[key].as_array().into_iter().flatten().filter_map(|a| a.as_str().map(str::to_owned)).collect()
        };
        let (args, root_composition) = (strings("args"), strings("rootComposition"));
        let mut placeholders = Placeholders::default();
        for (name, pattern) in config["patterns"].as_object().into_iter().flatten() {
            let pattern = pattern.as_str().unwrap_or_default();
            placeholders = placeholders
                .pattern(name, pattern)
                .unwrap_or_else(|e| panic!("{}/golden.json: pattern {name}: {e}", dir.display()));
        }
        Golden { bin: bin.to_owned(), dir, args, placeholders, root_composition }
    }

    /// A value known to the test (a repository root, say) that sessions write as `<NAME>`.
    pub fn literal(mut self, name: &str, value: &str) -> Self {
        self.placeholders = std::mem::take(&mut self.placeholders).literal(name, value);
        self
    }

    fn path(&self, session: &str) -> PathBuf {
        self.dir.join(format!("{session}.session"))
    }

    /// Replays one session over stdio and HTTP; panics with a diff naming the file and line when an
    /// answer differs. With `GOLDEN_BLESS=1` the stdio answers are written to the file first.
    pub fn check(&self, session: &str) {
        let path = self.path(session);
        let file = self.load(session).unwrap_or_else(|e| panic!("{e}"));
        let runtime = runtime();
        let file = if std::env::var_os(BLESS).is_some() { self.write_answers(&runtime, &path, &file) } else { file };
        let steps = file.steps();
        let shown = path.canonicalize().unwrap_or(path.clone());
        let stdio = differences(&shown, &steps, &runtime.block_on(self.run(Transport::Stdio, &steps)));
        let http = differences(&shown, &steps, &runtime.block_on(self.run(Transport::Http, &steps)));
        let report = match (stdio.is_empty(), http.is_empty()) {
            (true, true) => return,
            _ if stdio == http => format!("over stdio and HTTP alike:\n{stdio}"),
            _ => [("stdio", stdio), ("HTTP", http)]
                .into_iter()
                .filter(|(_, d)| !d.is_empty())
                .map(|(t, d)| format!("over {t}:\n{d}"))
                .collect(),
        };
        panic!("{report}\nIf the new answers are right, record them: {BLESS}=1 cargo test\n");
    }

    /// Replays one session over stdio only, the server started as `bin mcp ARGS.. EXTRA..`: the
    /// same transcript checked against another way of running the server (one whose state lives
    /// in a process the test started, say). Panics with a diff as [`check`](Golden::check) does.
    pub fn check_stdio_with(&self, session: &str, extra: &[String]) {
        let path = self.path(session);
        let file = self.load(session).unwrap_or_else(|e| panic!("{e}"));
        let steps = file.steps();
        let mut args = self.server_args();
        args.extend_from_slice(extra);
        let actual = runtime().block_on(self.run_with(Transport::Stdio, &args, &steps));
        let report = differences(&path.canonicalize().unwrap_or(path.clone()), &steps, &actual);
        assert!(report.is_empty(), "over stdio with {extra:?}:\n{report}");
    }

    /// Records a session: runs the file's `→` messages against the server over stdio and writes
    /// what came back as its `←` lines (a script of `→` lines becomes a transcript).
    pub fn record(&self, session: &str) {
        let file = self.load(session).unwrap_or_else(|e| panic!("{e}"));
        self.write_answers(&runtime(), &self.path(session), &file);
    }

    /// A session file, parsed; the error names the file, and the line when it does not parse.
    fn load(&self, session: &str) -> Result<SessionFile, String> {
        let path = self.path(session);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!("{}: {e} (a test or a docs page names a session file that is missing)", path.display())
        })?;
        SessionFile::parse(&text).map_err(|e| format!("{}:{}: {}", path.display(), e.line, e.message))
    }

    fn write_answers(&self, runtime: &tokio::runtime::Runtime, path: &Path, file: &SessionFile) -> SessionFile {
        let actual = runtime.block_on(self.run(Transport::Stdio, &file.steps()));
        let recorded = bless(file, &actual);
        std::fs::write(path, &recorded).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        SessionFile::parse(&recorded).expect("a rendered session parses")
    }

    /// Checks that the generated regions of a docs page are what the generator writes from the
    /// server's descriptors and sessions; with `DOCS_REGENERATE=1`, writes them.
    pub fn check_docs(&self, page: impl AsRef<Path>) {
        let (page, text, fresh) = self.generate_docs(page.as_ref());
        if fresh == text {
            return;
        }
        if std::env::var_os(REGENERATE).is_some() {
            std::fs::write(&page, fresh).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
            return;
        }
        let diff = similar::TextDiff::from_lines(&text, &fresh);
        panic!(
            "{}: the generated regions are out of date\n{}\nRegenerate them: {REGENERATE}=1 cargo test\n",
            page.display(),
            diff.unified_diff().context_radius(2).header("page", "generated")
        );
    }

    /// Rewrites the generated regions of a docs page.
    pub fn regenerate_docs(&self, page: impl AsRef<Path>) {
        let (page, text, fresh) = self.generate_docs(page.as_ref());
        if fresh != text {
            std::fs::write(&page, fresh).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        }
    }

    /// The page's path, its text, and its text with every region regenerated.
    fn generate_docs(&self, page: &Path) -> (PathBuf, String, String) {
        let page = page.canonicalize().unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        let tools = self.command_json("tools");
        let tools = tools.as_array().cloned().unwrap_or_default();
        let routes = docs::routes_from_openapi(&self.command_json("openapi"));
        let session = |name: &str| self.load(name);
        let sources = docs::Sources { tools: &tools, routes: &routes, session: &session };
        let fresh = docs::regenerate(&text, &sources).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        (page, text, fresh)
    }

    /// Every tool the server lists (`bin tools`) is a valid MCP `Tool` of each revision, and one
    /// the Anthropic API takes: it refuses every request whose tool list has an inputSchema with
    /// `allOf`, `anyOf` or `oneOf` at its root (unless `golden.json` allows the tool).
    pub fn check_descriptors(&self) {
        let tools = self.command_json("tools");
        let tools = tools.as_array().cloned().unwrap_or_default();
        assert!(!tools.is_empty(), "{} tools listed no tool", self.bin);
        let mut problems = crate::mcp_schema::tool_problems(&tools).unwrap_or_else(|e| panic!("{e}"));
        let names = tools.iter().map(|tool| (tool, tool["name"].as_str().unwrap_or("?")));
        for (tool, name) in names.filter(|(_, name)| !self.root_composition.iter().any(|allowed| allowed == name)) {
            for keyword in ["allOf", "anyOf", "oneOf"].into_iter().filter(|k| tool["inputSchema"].get(*k).is_some()) {
                problems.push(format!(
                    "tool {name}: `{keyword}` at the inputSchema's root, which the Anthropic API refuses"
                ));
            }
        }
        assert!(problems.is_empty(), "descriptors the MCP schema rejects:\n{}", problems.join("\n"));
    }

    /// `bin COMMAND args..` printing JSON (`tools`, `openapi`).
    fn command_json(&self, command: &str) -> Value {
        let out = std::process::Command::new(&self.bin)
            .arg(command)
            .args(self.server_args())
            .output()
            .unwrap_or_else(|e| panic!("{} {command}: {e}", self.bin));
        assert!(out.status.success(), "{} {command} failed: {}", self.bin, String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{} {command} printed no JSON: {e}", self.bin))
    }

    /// The server's arguments, placeholders filled in.
    fn server_args(&self) -> Vec<String> {
        let fill =
            |arg: &String| self.placeholders.fill(&Value::String(arg.clone())).as_str().unwrap_or(arg).to_owned();
        self.args.iter().map(fill).collect()
    }

    /// Every session file in the folder has a test, and every test its file.
    pub fn check_listed(&self, sessions: &[&str]) {
        let mut problems = Vec::new();
        for s in sessions {
            if !self.path(s).exists() {
                problems
                    .push(format!("{}: a test names this session, but the file is missing", self.path(s).display()));
            }
        }
        let entries = std::fs::read_dir(&self.dir).unwrap_or_else(|e| panic!("{}: {e}", self.dir.display()));
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".session")
                && !sessions.contains(&stem)
            {
                problems.push(format!(
                    "{}: no test replays this session; add `{stem}` to golden_tests!",
                    entry.path().display()
                ));
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    async fn run(&self, transport: Transport, steps: &[Step]) -> Vec<Vec<Value>> {
        self.run_with(transport, &self.server_args(), steps).await
    }

    async fn run_with(&self, transport: Transport, args: &[String], steps: &[Step]) -> Vec<Vec<Value>> {
        let fail = |e: &dyn std::fmt::Display| -> ! { panic!("{} over {transport:?}: {e}", self.bin) };
        let (mut client, _server) = match transport {
            Transport::Stdio => (Client::Stdio(process::stdio(&self.bin, args).unwrap_or_else(|e| fail(&e))), None),
            Transport::Http => {
                let (child, client) = process::http(&self.bin, args).await.unwrap_or_else(|e| fail(&e));
                (Client::Http(client), Some(child))
            }
        };
        let actual = replay::run(&mut client, steps, &self.placeholders).await.unwrap_or_else(|e| fail(&e));
        let _ = client.close().await;
        actual
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a tokio runtime")
}

/// The file with each step's `←` lines replaced by what the server sent; comments stay.
pub fn bless(file: &SessionFile, actual: &[Vec<Value>]) -> String {
    let mut lines = Vec::new();
    let mut step = 0;
    for (_, line) in &file.lines {
        match line {
            Line::Sent(v) => {
                lines.push(Line::Sent(v.clone()));
                lines.extend(actual.get(step).into_iter().flatten().cloned().map(Line::Received));
                step += 1;
            }
            Line::Received(_) => {}
            Line::Text(t) => lines.push(Line::Text(t.clone())),
        }
    }
    SessionFile::render(&lines)
}

/// A unified diff per step whose answers differ, headed by the file and line. Messages are
/// pretty-printed for the diff, so a changed field shows as the one line it is.
pub fn differences(path: &Path, steps: &[Step], actual: &[Vec<Value>]) -> String {
    let mut report = String::new();
    for (step, got) in steps.iter().zip(actual) {
        let expected: Vec<Value> = step.received.iter().map(|(_, v)| v.clone()).collect();
        if replay::matches(&expected, got) {
            continue;
        }
        let line = step.received.first().map_or(step.line, |(n, _)| *n);
        let render = |vs: &[Value]| {
            vs.iter()
                .map(|v| format!("← {}\n", serde_json::to_string_pretty(v).unwrap_or_default()))
                .collect::<String>()
        };
        let (old, new) = (render(&expected), render(got));
        let diff = similar::TextDiff::from_lines(&old, &new);
        let _ = writeln!(
            report,
            "{}:{line}: the answer to line {} differs\n{}",
            path.display(),
            step.line,
            diff.unified_diff().context_radius(2).header("recorded", "received")
        );
    }
    report
}

/// One `#[test]` per session, one that every session file has its test, and, when docs pages
/// are named, one that their generated regions are current:
/// `golden_tests!(golden(), [handshake, tools], docs: ["../../docs/servers/x.md"]);`
#[macro_export]
macro_rules! golden_tests {
    ($golden:expr, [$($session:ident),* $(,)?], docs: [$($page:expr),* $(,)?]) => {
        $crate::golden_tests!($golden, [$($session),*]);

        #[test]
        fn docs_are_generated_from_the_sessions() {
            $(
                $golden.check_docs($page);
            )*
        }
    };
    ($golden:expr, [$($session:ident),* $(,)?]) => {
        $(
            #[test]
            fn $session() {
                $golden.check(stringify!($session));
            }
        )*

        #[test]
        fn every_session_file_has_a_test() {
            $golden.check_listed(&[$(stringify!($session)),*]);
        }

        #[test]
        fn every_descriptor_is_a_valid_mcp_tool() {
            $golden.check_descriptors();
        }
    };
}
