//! docs/guide/recording-sessions.md, run as written against the greeter: every shell command of
//! the page, its placeholder paths replaced by a scratch copy of this crate (and its addresses by
//! free ones), runs through the golden command's own code in this process, a host standing in
//! for Claude Code where the page names it; every file the page shows is this crate's, word for
//! word (the test, `golden.json`, the docs page's regions) or by its dependency (`Cargo.toml`).

#[path = "../../../examples/notes/tests/common/markdown.rs"]
mod markdown;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};

use markdown::{blocks_of, guide_page, workspace_root};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tooltable_golden::client::{Client, HttpClient};
use tooltable_golden::config::Config;
use tooltable_golden::record::{self, Recorder};

const PAGE: &str = "recording-sessions.md";
const GREETER: &str = env!("CARGO_BIN_EXE_greeter");
/// What the page writes for the greeter's binary, its crate's root and this repository's root.
const BINARY: &str = "/ABSOLUTE/PATH/TO/greeter/target/debug/greeter";
const CRATE: &str = "/ABSOLUTE/PATH/TO/greeter";
const REPOSITORY: &str = "/ABSOLUTE/PATH/TO/tooltable";

fn crate_file(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_test_and_golden_json_it_shows_are_this_crate_s() {
    let rust = blocks_of(&guide_page(PAGE), "rust");
    assert_eq!(rust.len(), 1, "the page shows tests/golden.rs");
    assert!(
        crate_file("tests/golden.rs").contains(&rust[0].text),
        "{PAGE}:{}: not tests/golden.rs:\n{}",
        rust[0].line,
        rust[0].text
    );
    let json = blocks_of(&guide_page(PAGE), "json");
    assert_eq!(json.len(), 1, "the page shows sessions/golden.json");
    assert_eq!(json[0].text, crate_file("sessions/golden.json"), "{PAGE}:{}", json[0].line);
    let regions = blocks_of(&guide_page(PAGE), "markdown");
    assert_eq!(regions.len(), 1, "the page shows the regions of docs/tools.md");
    let page = crate_file("docs/tools.md");
    let markers: Vec<&str> = page.lines().filter(|l| l.starts_with("<!-- ")).collect();
    let shown: Vec<&str> = regions[0].text.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(shown, markers, "{PAGE}:{}: the markers of docs/tools.md, in order", regions[0].line);
}

#[test]
fn the_dev_dependency_it_shows_is_this_crate_s() {
    let toml = blocks_of(&guide_page(PAGE), "toml");
    assert_eq!(toml.len(), 1, "the page shows one Cargo.toml excerpt");
    let shown = &toml[0].text;
    let ours = crate_file("Cargo.toml");
    let dependency = |text: &str| -> Option<String> {
        let section = text.split("[dev-dependencies]").nth(1)?;
        let line = section.lines().find(|l| l.starts_with("tooltable-golden = "))?;
        Some(line.to_owned())
    };
    let (shown, ours) = (dependency(shown).expect("the excerpt's dev-dependency"), dependency(&ours).expect("ours"));
    assert!(shown.contains(&format!("{REPOSITORY}/golden-sessions\"")), "{shown}");
    assert!(ours.contains("path = \"..\""), "this crate depends on the golden-sessions folder: {ours}");
}

/// The page's shell commands, in order, their placeholders replaced.
struct Run {
    scratch: PathBuf,
    /// An address the page writes, and the one this run uses for it.
    addresses: HashMap<String, String>,
    runtime: tokio::runtime::Runtime,
    servers: Vec<Child>,
    /// The proxy the page starts, stopped when the page's host is done with it.
    proxy: Option<Proxy>,
}

/// The page's recorder over HTTP, running in this process: what stops it, and its task.
type Proxy = (tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<Result<(), String>>);

impl Run {
    fn new() -> Run {
        let scratch = std::env::temp_dir().join(format!("golden-guide-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&scratch);
        for dir in ["sessions", "docs"] {
            std::fs::create_dir_all(scratch.join(dir)).expect("a scratch crate");
        }
        for file in ["sessions/golden.json", "sessions/greeting.session", "sessions/listing.session", "docs/tools.md"] {
            std::fs::write(scratch.join(file), crate_file(file)).expect("a copy");
        }
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        Run { scratch, addresses: HashMap::new(), runtime, servers: Vec::new(), proxy: None }
    }

    fn resolve(&self, word: &str) -> String {
        let mut word = word.replace(BINARY, GREETER).replace(CRATE, &self.scratch.display().to_string());
        word = word.replace(REPOSITORY, &workspace_root().display().to_string());
        for (written, used) in &self.addresses {
            word = word.replace(written, used);
        }
        word
    }

    fn command(&mut self, at: &str, line: &str) {
        let words: Vec<String> = line.split_whitespace().map(|w| self.resolve(w)).collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        match words.as_slice() {
            ["cargo", "install", "--path", path] => {
                let manifest = std::fs::read_to_string(Path::new(path).join("Cargo.toml")).expect("a crate there");
                assert!(manifest.contains("name = \"golden\""), "{at}: {path} builds the golden command");
            }
            ["claude", "mcp", "add", _name, "--", "golden", "record", "--out", out, "--", server @ ..] => {
                self.record_stdio(at, out, server)
            }
            ["claude", "mcp", "add", "--transport", "http", _name, url] => self.host_over_http(at, url),
            [server, "serve", "--listen", address] if *server == GREETER => self.serve(at, address),
            ["golden", "record", "--out", out, "--listen", address, "--upstream", upstream] => {
                self.proxy(out, address, upstream)
            }
            ["golden", "replay", ..] => {
                self.golden(at, &words[1..], 0);
            }
            ["golden", "accept", path] => self.accept(at, path),
            ["golden", "reject", path] => self.reject(at, path),
            _ => panic!("{at}: a command this test does not know: {line}"),
        }
    }

    /// `golden ARGS`, as the binary runs it; its exit code must be `expected`.
    fn golden(&self, at: &str, args: &[&str], expected: u8) {
        let code = tooltable_golden::cli::run(std::iter::once("golden").chain(args.iter().copied()));
        assert_eq!(code, ExitCode::from(expected), "{at}: golden {args:?}");
    }

    /// What Claude Code does with the page's `claude mcp add ... -- golden record ...`: starts the
    /// recorder as its stdio server, and talks to it.
    fn record_stdio(&self, at: &str, out: &str, server: &[&str]) {
        let placeholders = Config::load(Path::new(out).parent().unwrap()).unwrap().placeholders().unwrap();
        let recorder = Recorder::create(Path::new(out), placeholders, "stdio").unwrap();
        let (program, args) = server.split_first().expect("a server command");
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        self.runtime.block_on(async {
            let (host, recorder_in) = tokio::io::duplex(1 << 16);
            let (recorder_out, answers) = tokio::io::duplex(1 << 16);
            let relay = record::stdio::relay(program, &args, BufReader::new(recorder_in), recorder_out, &recorder);
            let talk = async move {
                let (mut host, mut answers) = (host, BufReader::new(answers).lines());
                for (id, msg) in claude_code() {
                    host.write_all(format!("{msg}\n").as_bytes()).await.unwrap();
                    while let Some(id) = &id {
                        let answer: Value = serde_json::from_str(&answers.next_line().await.unwrap().unwrap()).unwrap();
                        if answer["id"] == *id {
                            break;
                        }
                    }
                }
                // Claude Code stops the server: the recorder's stdin ends.
            };
            let (status, ()) = tokio::join!(relay, talk);
            assert!(status.unwrap().success(), "{at}: the greeter exits cleanly when its host goes");
        });
        let recorded = std::fs::read_to_string(out).unwrap();
        assert!(
            recorded
                .starts_with("# Recorded by golden record from claude-code 2.1.0 over stdio, revision 2025-11-25.\n"),
            "{at}:\n{recorded}"
        );
        assert!(recorded.contains("\"text\": \"Hello, Ada!\""), "{at}:\n{recorded}");
    }

    fn serve(&mut self, at: &str, address: &str) {
        let mut child = Command::new(GREETER)
            .args(["serve", "--listen", "127.0.0.1:0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        // Reads to the end, so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)).map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("listening on ").and_then(|rest| rest.split_whitespace().next()) {
                    let _ = tx.send(url.trim_start_matches("http://").split('/').next().unwrap_or_default().to_owned());
                }
            }
        });
        let used = rx.recv().unwrap_or_else(|_| panic!("{at}: greeter serve says where it listens"));
        self.addresses.insert(address.to_owned(), used);
        self.servers.push(child);
    }

    fn proxy(&mut self, out: &str, address: &str, upstream: &str) {
        let placeholders = Config::load(Path::new(out).parent().unwrap()).unwrap().placeholders().unwrap();
        let recorder = Recorder::create(Path::new(out), placeholders, "HTTP").unwrap();
        let listener = self.runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        self.addresses.insert(address.to_owned(), listener.local_addr().unwrap().to_string());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let upstream = upstream.to_owned();
        let task = self.runtime.spawn(async move {
            record::http::proxy(listener, &upstream, recorder, async {
                let _ = stopped.await;
            })
            .await
        });
        self.proxy = Some((stop, task));
    }

    /// What Claude Code does with `claude mcp add --transport http`: talks to the URL; then the
    /// page's recorder is stopped.
    fn host_over_http(&mut self, at: &str, url: &str) {
        self.runtime.block_on(async {
            let mut client = Client::Http(HttpClient::new(url).unwrap());
            for (id, msg) in claude_code() {
                client.send(&msg).await.unwrap_or_else(|e| panic!("{at}: {e}"));
                if let Some(id) = id {
                    client.until_response(&id, std::time::Duration::from_secs(60)).await.unwrap();
                }
            }
            let _ = client.close().await;
        });
        let (stop, task) = self.proxy.take().expect("the page starts the recorder first");
        let _ = stop.send(());
        self.runtime.block_on(task).unwrap().unwrap();
    }

    /// The page's `golden accept PATH`, once a replay against a changed server has left a change
    /// pending: the recording is made to hold another description of `greet`, as one made
    /// before the description changed does; the replay fails and leaves what the greeter lists
    /// pending; accepted, it matches.
    fn accept(&self, at: &str, path: &str) {
        let session = Path::new(path);
        self.make_pending(at, session);
        self.golden(at, &["accept", path], 0);
        assert!(!tooltable_golden::pending::pending_of(session).exists(), "{at}");
        self.golden(at, &["replay", path, "--", GREETER, "mcp"], 0);
    }

    /// The page's `golden reject FOLDER`: a pending change in it is dropped.
    fn reject(&self, at: &str, folder: &str) {
        let session = Path::new(folder).join("from_claude_code.session");
        let before = self.make_pending(at, &session);
        self.golden(at, &["reject", folder], 0);
        assert!(!tooltable_golden::pending::pending_of(&session).exists(), "{at}");
        assert_eq!(std::fs::read_to_string(&session).unwrap(), before, "{at}: the session is as it was");
    }

    /// Rewrites the recorded description of `greet` in `session`, replays it (which fails) and
    /// returns the text.
    fn make_pending(&self, at: &str, session: &Path) -> String {
        let text = std::fs::read_to_string(session).unwrap().replace("Greets someone by name.", "Greets a person.");
        std::fs::write(session, &text).unwrap();
        let path = session.display().to_string();
        self.golden(at, &["replay", &path, "--", GREETER, "mcp"], 1);
        let pending = std::fs::read_to_string(tooltable_golden::pending::pending_of(session)).unwrap();
        assert!(
            pending.contains("Greets someone by name.") && !pending.contains("Greets a person."),
            "{at}: the pending file is what came back"
        );
        text
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        for server in &mut self.servers {
            let _ = server.kill();
            let _ = server.wait();
        }
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

/// What Claude Code sends a server it starts, each request with its id: the handshake, the
/// listing, and the calls of "greet Ada, then add 2 and 40".
fn claude_code() -> Vec<(Option<Value>, Value)> {
    let request = |id: u64, method: &str, params: Value| {
        (Some(json!(id)), json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
    };
    vec![
        request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {"roots": {}}, "clientInfo": {"name": "claude-code", "version": "2.1.0"}}),
        ),
        (None, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        request(1, "tools/list", json!({})),
        request(2, "tools/call", json!({"name": "greet", "arguments": {"name": "Ada"}})),
        request(3, "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 40}})),
    ]
}

#[test]
fn every_command_of_the_page_runs() {
    let mut run = Run::new();
    let blocks = blocks_of(&guide_page(PAGE), "sh");
    assert!(blocks.len() >= 4, "the page shows its commands");
    for block in blocks {
        for (i, line) in block.text.lines().enumerate() {
            run.command(&format!("{PAGE}:{}", block.line + i), line);
        }
    }
}
