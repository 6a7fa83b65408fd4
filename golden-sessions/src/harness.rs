//! The test harness a server crate calls: every session file in its folder replayed against a
//! fresh server over stdio and over HTTP, a readable diff on a mismatch with what came back
//! written beside the session as `NAME.session.new` (see [`review`](crate::review)), and
//! re-recording with `GOLDEN_BLESS=1`.
//!
//! ```
//! use tooltable_golden::Golden;
//!
//! fn golden() -> Golden {
//!     // In a server crate's tests/golden.rs: env!("CARGO_BIN_EXE_my-server").
//!     Golden::new("target/debug/my-server", concat!(env!("CARGO_MANIFEST_DIR"), "/sessions"))
//! }
//!
//! tooltable_golden::golden_tests!(golden(), [handshake, tools]);
//! # fn main() {}
//! ```

use std::path::{Path, PathBuf};

use serde_json::Value;
use tokio::process::Child;

use crate::client::Client;
use crate::config::Config;
use crate::docs;
use crate::pending;
use crate::placeholders::Placeholders;
use crate::process;
use crate::replay::{Replayer, Verdict};
use crate::session::SessionFile;

/// The environment variable that re-records the `←` lines instead of comparing them.
pub const BLESS: &str = "GOLDEN_BLESS";
/// The environment variable that rewrites docs pages' generated regions instead of comparing them.
pub const REGENERATE: &str = "DOCS_REGENERATE";

/// The sessions of one server, a tooltable server binary: `BIN mcp ARGS` over stdio, `BIN serve
/// --listen 127.0.0.1:0 ARGS` over HTTP, `BIN tools` and `BIN openapi` for the docs.
#[derive(Debug)]
pub struct Golden {
    bin: String,
    dir: PathBuf,
    config: Config,
    placeholders: Placeholders,
    /// The package and test target running the sessions, for the commands messages give.
    cargo_test: Option<(String, String)>,
}

/// Over which transport a session runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// The server's standard input and output.
    Stdio,
    /// Streamable HTTP.
    Http,
}

impl Transport {
    /// How messages name it.
    fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "HTTP",
        }
    }
}

impl Golden {
    /// The server binary and its folder of sessions, configured by the folder's `golden.json`
    /// (see [`config`](crate::config)).
    pub fn new(bin: &str, dir: impl AsRef<Path>) -> Self {
        let dir = dir.as_ref().to_path_buf();
        let fail = |e: String| -> ! { panic!("{}: {e}", dir.display()) };
        let config = Config::load(&dir).unwrap_or_else(|e| fail(e));
        let placeholders = config.placeholders().unwrap_or_else(|e| fail(e));
        Golden { bin: bin.to_owned(), dir, config, placeholders, cargo_test: None }
    }

    /// A value known to the test (a repository root, say) that sessions write as `<NAME>`.
    pub fn literal(mut self, name: &str, value: &str) -> Self {
        self.placeholders = self.placeholders.literal(name, value);
        self
    }

    /// Names the package and test target that run the sessions (what [`golden_tests!`](crate::golden_tests) passes),
    /// so that a failure gives the command that records again.
    pub fn in_cargo_test(mut self, package: &str, test: &str) -> Self {
        self.cargo_test = Some((package.to_owned(), test.to_owned()));
        self
    }

    fn path(&self, session: &str) -> PathBuf {
        let path = self.dir.join(format!("{session}.session"));
        path.canonicalize().unwrap_or(path)
    }

    /// The command that records `session` again (every session when `None`).
    fn bless_command(&self, session: Option<&str>) -> String {
        let filter = session.map(|s| format!(" {s}")).unwrap_or_default();
        match &self.cargo_test {
            Some((package, test)) => format!("{BLESS}=1 cargo test -p {package} --test {test}{filter}"),
            None => format!("{BLESS}=1 cargo test"),
        }
    }

    /// Replays one session over stdio and HTTP (those `golden.json` names). When an answer
    /// differs, writes what came back as `NAME.session.new` and panics with a diff naming the file
    /// and line; when it matches, removes a `NAME.session.new` left from before. With
    /// `GOLDEN_BLESS=1` the answers over the first transport are written to the file first.
    pub fn check(&self, session: &str) {
        let path = self.path(session);
        let mut file = SessionFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let runtime = runtime();
        let args = self.server_args();
        let transports = &self.config.transports;
        if let (Some(first), Some(_)) = (transports.first(), std::env::var_os(BLESS)) {
            file = bless(&path, &file, &runtime.block_on(self.replay(*first, &args, &file)));
        }
        let verdicts: Vec<(&str, Verdict)> =
            transports.iter().map(|t| (t.name(), runtime.block_on(self.replay(*t, &args, &file)))).collect();
        settle(&path, &file, &verdicts, &self.bless_command(Some(session)), &self.bless_command(None));
    }

    /// Replays one session over stdio only, the server started as `bin mcp ARGS.. EXTRA..`: the
    /// same transcript checked against another way of running the server (one whose state lives
    /// in a process the test started, say). Panics with a diff as [`check`](Golden::check) does,
    /// but writes no pending file: the session's own test does.
    pub fn check_stdio_with(&self, session: &str, extra: &[String]) {
        let path = self.path(session);
        let file = SessionFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut args = self.server_args();
        args.extend_from_slice(extra);
        let verdict = runtime().block_on(self.replay(Transport::Stdio, &args, &file));
        assert!(verdict.matched(), "over stdio with {extra:?}:\n{}", verdict.differences(&path));
    }

    /// Records a session: runs the file's `→` messages against the server over stdio and writes
    /// what came back as its `←` lines (a script of `→` lines becomes a transcript).
    pub fn record(&self, session: &str) {
        let path = self.path(session);
        let file = SessionFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
        bless(&path, &file, &runtime().block_on(self.replay(Transport::Stdio, &self.server_args(), &file)));
    }

    /// Checks the generated regions of every docs page `golden.json` names; see
    /// [`check_page`](Golden::check_page).
    pub fn check_docs(&self) {
        for page in &self.config.docs {
            self.check_page(page);
        }
    }

    /// Checks that the generated regions of a docs page are what the generator writes from the
    /// server's descriptors and sessions; with `DOCS_REGENERATE=1`, writes them. When they differ,
    /// writes the page as generated as `PAGE.md.new`, for `golden accept`.
    pub fn check_page(&self, page: impl AsRef<Path>) {
        let (page, text, fresh) = self.generate_docs(page.as_ref());
        check_generated(&page, &text, &fresh);
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
        let mut routes = docs::routes_from_openapi(&self.command_json("openapi"));
        routes.extend(self.config.routes.clone());
        let session = |name: &str| SessionFile::load(&self.path(name));
        let sources = docs::Sources { tools: Some(&tools), routes: &routes, session: &session };
        let fresh = docs::regenerate(&text, &sources).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        (page, text, fresh)
    }

    /// Every tool the server lists (`bin tools`) is a valid MCP `Tool` of each revision, and one
    /// the Anthropic API takes (see [`mcp_schema`](crate::mcp_schema)).
    pub fn check_descriptors(&self) {
        let tools = self.command_json("tools");
        let tools = tools.as_array().cloned().unwrap_or_default();
        assert!(!tools.is_empty(), "{} tools listed no tool", self.bin);
        let problems = crate::mcp_schema::descriptor_problems(&tools, &self.config.root_composition)
            .unwrap_or_else(|e| panic!("{e}"));
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
        self.config.args.iter().map(fill).collect()
    }

    /// Every session file in the folder has a test, and every test its file.
    pub fn check_listed(&self, sessions: &[&str]) {
        let problems = unlisted(&self.dir, sessions, "add `{stem}` to golden_tests!");
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    async fn replay(&self, transport: Transport, args: &[String], file: &SessionFile) -> Verdict {
        let fail = |e: &dyn std::fmt::Display| -> ! { panic!("{} over {transport:?}: {e}", self.bin) };
        let (mut client, _server): (Client, Option<Child>) = match transport {
            Transport::Stdio => (Client::Stdio(process::stdio(&self.bin, args).unwrap_or_else(|e| fail(&e))), None),
            Transport::Http => {
                let (child, client) = process::http(&self.bin, args).await.unwrap_or_else(|e| fail(&e));
                (Client::Http(client), Some(child))
            }
        };
        let verdict = Replayer::new(file, &self.placeholders).run(&mut client).await.unwrap_or_else(|e| fail(&e));
        let _ = client.close().await;
        verdict
    }
}

/// Writes the session as `verdict` observed it to `path` (what `GOLDEN_BLESS=1` does), and
/// returns it.
pub fn bless(path: &Path, file: &SessionFile, verdict: &Verdict) -> SessionFile {
    let observed = verdict.observed_session(file);
    std::fs::write(path, &observed).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    SessionFile::parse(&observed).expect("a rendered session parses")
}

/// Ends a session's check on what its replays found (each named by its transport): passes, and
/// removes a pending file left from before, when each matched; else writes what the first that
/// differs observed as the pending `NAME.session.new` and panics with the diffs and the commands
/// that take it (`record_one` records this session again, `record_all` every one).
pub fn settle(path: &Path, file: &SessionFile, verdicts: &[(&str, Verdict)], record_one: &str, record_all: &str) {
    assert!(!file.steps().is_empty(), "{}: the session sends no message", path.display());
    let Some((_, first)) = verdicts.iter().find(|(_, v)| !v.matched()) else {
        pending::clear(path);
        return;
    };
    let written = pending::write(path, &first.observed_session(file)).unwrap_or_else(|e| panic!("{e}"));
    if first.unrecorded() {
        panic!(
            "{}: no answer is recorded yet. What the server answered is in {}: accept it with `golden accept {}`, or record it: {record_one}\n",
            path.display(),
            written.display(),
            written.display(),
        );
    }
    let reports: Vec<(&str, String)> = verdicts.iter().map(|(t, v)| (*t, v.differences(path))).collect();
    let report = if reports.windows(2).all(|w| w[0].1 == w[1].1) && reports.len() > 1 {
        format!("over {} alike:\n{}", reports.iter().map(|(t, _)| *t).collect::<Vec<_>>().join(" and "), reports[0].1)
    } else {
        reports.iter().filter(|(_, d)| !d.is_empty()).map(|(t, d)| format!("over {t}:\n{d}")).collect()
    };
    panic!(
        "{report}\nWhat came back is in {}. If it is right, accept it: `golden accept {}` (`golden review` shows each change), or record every session again: {record_all}\n",
        written.display(),
        written.display(),
    );
}

/// Ends a docs page's check: passes when `fresh` (the page as generated) is its `text`; with
/// `DOCS_REGENERATE=1` writes it; else writes it as the pending `PAGE.md.new` and panics with
/// the diff.
pub fn check_generated(page: &Path, text: &str, fresh: &str) {
    if fresh == text {
        pending::clear(page);
        return;
    }
    if std::env::var_os(REGENERATE).is_some() {
        std::fs::write(page, fresh).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        return;
    }
    let written = pending::write(page, fresh).unwrap_or_else(|e| panic!("{e}"));
    let diff = similar::TextDiff::from_lines(text, fresh);
    panic!(
        "{}: the generated regions are out of date\n{}\nThe page as generated is in {}: accept it with `golden accept {}`, or regenerate: {REGENERATE}=1 cargo test\n",
        page.display(),
        diff.unified_diff().context_radius(2).header("page", "generated"),
        written.display(),
        written.display()
    );
}

/// Checks the pages `dir`'s `golden.json` names whose regions are all made from its sessions
/// (tool tables with `session=NAME`, their routes from `golden.json`), as [`check_generated`]
/// does: for a server the harness does not start, like one a test drives itself.
pub fn check_session_docs(dir: &Path) {
    let config = Config::load(dir).unwrap_or_else(|e| panic!("{e}"));
    let session = |name: &str| SessionFile::load(&dir.join(format!("{name}.session")));
    for page in &config.docs {
        let page = page.canonicalize().unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        let fresh = docs::refresh_from_sessions(&text, &config.routes, &session)
            .unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        check_generated(&page, &text, &fresh);
    }
}

/// What is wrong between the sessions a test names and the `.session` files of `dir`: a named
/// one missing, or a file no test names (`hint` says what to do, `{stem}` its name).
pub fn unlisted(dir: &Path, sessions: &[&str], hint: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for s in sessions {
        let path = dir.join(format!("{s}.session"));
        if !path.exists() {
            problems.push(format!("{}: a test names this session, but the file is missing", path.display()));
        }
    }
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".session")
            && !sessions.contains(&stem)
        {
            problems.push(format!(
                "{}: no test replays this session; {}",
                entry.path().display(),
                hint.replace("{stem}", stem)
            ));
        }
    }
    problems
}

/// The runtime a harness call runs its replays on.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a tokio runtime")
}

/// One `#[test]` per session, one that every session file has its test, one that every
/// descriptor is a valid MCP tool, and one that the docs pages `golden.json` names are generated
/// from the sessions: `golden_tests!(golden(), [handshake, tools]);`
#[macro_export]
macro_rules! golden_tests {
    ($golden:expr, [$($session:ident),* $(,)?]) => {
        $(
            #[test]
            fn $session() {
                $golden.in_cargo_test(env!("CARGO_PKG_NAME"), env!("CARGO_CRATE_NAME")).check(stringify!($session));
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

        #[test]
        fn docs_are_generated_from_the_sessions() {
            $golden.check_docs();
        }
    };
}
