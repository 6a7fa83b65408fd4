//! docs/guide/using-it-from-a-client.md, run as written: every JSON configuration and every shell
//! command of the page, with the placeholder path replaced by this checkout, is launched the way a
//! host launches it and completes a handshake. stdio commands answer `initialize` and
//! `tools/list`; HTTP URLs have the shape `serve` prints and answer a POSTed `initialize`.

mod common;

use std::path::{Path, PathBuf};

use common::markdown::{Block, blocks_of, guide_page, workspace_root};
use common::{NOTES, Served, StdioClient, http_initialize};
use serde_json::{Map, Value, json};

const PAGE: &str = "using-it-from-a-client.md";
/// What the page writes for the checkout's absolute path.
const PLACEHOLDER: &str = "/ABSOLUTE/PATH/TO/tooltable";
/// The address every `serve` of the page listens on, and so the URL every HTTP configuration names.
const LISTEN: &str = "127.0.0.1:8080";
const MCP_PATH: &str = "/mcp";

/// Where this build put the servers' binaries: beside the notes binary.
fn binaries() -> PathBuf {
    Path::new(NOTES).parent().expect("the binary is in a folder").to_owned()
}

/// A word of the page with the placeholder replaced; `target/release/X` is this build's X.
fn resolve(word: &str) -> String {
    let release = format!("{PLACEHOLDER}/target/release/");
    let word = word.replace(&release, &format!("{}/", binaries().display()));
    word.replace(PLACEHOLDER, &workspace_root().display().to_string())
}

/// The binary a name of the page stands for, which must have been built.
fn binary(name: &str) -> String {
    let path = binaries().join(name);
    assert!(
        path.is_file(),
        "{} is not built; the page's servers are checked with the real binaries: cargo build -p valem -p conformance-server -p entities",
        path.display()
    );
    path.display().to_string()
}

/// A stdio command as the page gives it: it must use absolute paths, and must answer a handshake
/// and `tools/list`.
fn check_stdio(at: &str, command: &str, args: &[String]) {
    assert!(command.starts_with('/'), "{at}: the command must be an absolute path: {command}");
    let program = resolve(command);
    let name = Path::new(&program).file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
    binary(&name);
    let args: Vec<String> = args.iter().map(|a| resolve(a)).collect();
    let mut client = StdioClient::spawn(&program, &args);
    let init = client.initialize();
    assert_eq!(init["serverInfo"]["name"], name, "{at}: {program} {args:?} answered {init}");
    let tools = client.request(1, "tools/list", json!({}));
    let listed = tools["result"]["tools"].as_array().map_or(0, Vec::len);
    assert!(listed > 0, "{at}: tools/list of {program} {args:?}: {tools}");
}

/// Starts `name serve` on a free port; the address it prints must have the shape of `url`.
fn serve(at: &str, name: &str, url: &str) -> Served {
    assert_eq!(url, format!("http://{LISTEN}{MCP_PATH}"), "{at}: the URL `serve --listen {LISTEN}` prints");
    let served = Served::start(&binary(name), &["serve".into(), "--listen".into(), "127.0.0.1:0".into()]);
    let printed =
        served.line.strip_prefix("listening on ").and_then(|l| l.split_whitespace().next()).unwrap_or_default();
    let path = printed.strip_prefix(&served.base).unwrap_or_default();
    assert!(path.is_empty() || path == MCP_PATH, "{at}: the page shows {url}; the server printed {}", served.line);
    served
}

/// An HTTP URL of the page: `initialize` POSTed to it is answered by the server.
fn check_http(at: &str, served: &Served, name: &str) {
    let response = http_initialize(&served.base, MCP_PATH);
    assert_eq!(response.status, 200, "{at}: {}", response.body);
    assert_eq!(response.json()["result"]["serverInfo"]["name"], name, "{at}: {}", response.body);
}

fn string_list(value: Option<&Value>) -> Vec<String> {
    value.and_then(Value::as_array).into_iter().flatten().filter_map(|v| v.as_str().map(str::to_owned)).collect()
}

/// One server of a JSON configuration, named like its binary.
fn check_config_entry(at: &str, name: &str, entry: &Map<String, Value>) {
    if let Some(url) = entry.get("url").and_then(Value::as_str) {
        return check_http(at, &serve(at, name, url), name);
    }
    let command =
        entry.get("command").and_then(Value::as_str).unwrap_or_else(|| panic!("{at}: {name} has no command or url"));
    let args = string_list(entry.get("args"));
    if command == "npx" {
        // The stdio-to-HTTP bridge: the URL is its last argument.
        assert!(args.iter().any(|a| a == "mcp-remote"), "{at}: npx runs the mcp-remote bridge: {args:?}");
        let url = args.last().map(String::as_str).unwrap_or_default();
        return check_http(at, &serve(at, name, url), name);
    }
    check_stdio(at, command, &args);
}

fn check_config(block: &Block) -> usize {
    let at = format!("{PAGE}:{}", block.line);
    let config: Value = serde_json::from_str(&block.text).unwrap_or_else(|e| panic!("{at}: not JSON: {e}"));
    let servers = config.get("mcpServers").or_else(|| config.get("servers")).and_then(Value::as_object);
    let servers = servers.unwrap_or_else(|| panic!("{at}: no mcpServers or servers object"));
    if config.get("servers").is_some() {
        for (name, entry) in servers {
            assert!(entry.get("type").is_some_and(|t| t == "stdio" || t == "http"), "{at}: {name} states its type");
        }
    }
    for (name, entry) in servers {
        let entry = entry.as_object().unwrap_or_else(|| panic!("{at}: {name} is no object"));
        check_config_entry(&at, name, entry);
    }
    servers.len()
}

/// One block of shell commands. A `serve` line starts that server; a line with ` -- ` runs the
/// command after it over stdio; a line naming the HTTP URL connects to the server the block
/// started; `cargo build` lines and comments are left alone. Any other line fails the test, so
/// that no command of the page goes unchecked.
fn check_commands(block: &Block) -> usize {
    let mut served: Option<(String, Served)> = None;
    let mut checked = 0;
    for (n, line) in block.text.lines().enumerate() {
        let at = format!("{PAGE}:{}", block.line + n);
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() || words[0].starts_with('#') || line.starts_with("cargo build ") {
            continue;
        }
        if let Some(dashes) = words.iter().position(|w| *w == "--") {
            let command = words.get(dashes + 1).unwrap_or_else(|| panic!("{at}: nothing after --"));
            let args: Vec<String> = words[dashes + 2..].iter().map(|w| w.to_string()).collect();
            check_stdio(&at, command, &args);
        } else if words.get(1) == Some(&"serve") {
            assert_eq!(words[2..], ["--listen", LISTEN], "{at}: serve listens on {LISTEN}");
            let name = Path::new(words[0]).file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            let server = serve(&at, &name, &format!("http://{LISTEN}{MCP_PATH}"));
            check_http(&at, &server, &name);
            served = Some((name, server));
        } else if let Some(url) = words.iter().find(|w| w.starts_with("http://")) {
            let (name, server) =
                served.as_ref().unwrap_or_else(|| panic!("{at}: {url}, but no `serve` line before it"));
            assert_eq!(*url, format!("http://{LISTEN}{MCP_PATH}"), "{at}: the URL {name} serve prints");
            check_http(&at, server, name);
        } else {
            panic!("{at}: a command this test does not check: {line}");
        }
        checked += 1;
    }
    checked
}

#[test]
fn every_configuration_of_the_page_connects() {
    let page = guide_page(PAGE);
    let configs: usize = blocks_of(&page, "json").iter().map(check_config).sum();
    let commands: usize = blocks_of(&page, "sh").iter().map(check_commands).sum();
    assert!(configs >= 9, "the page's JSON configurations name {configs} servers");
    assert!(commands >= 9, "the page's shell blocks hold {commands} commands");
}

#[test]
fn the_placeholder_is_the_only_path_the_page_gives() {
    let page = guide_page(PAGE);
    for block in blocks_of(&page, "json").iter().chain(&blocks_of(&page, "sh")) {
        for word in block.text.split(|c: char| c.is_whitespace() || c == '"') {
            let is_path = word.contains("target/") || word.contains("examples/");
            assert!(!is_path || word.starts_with(PLACEHOLDER), "{PAGE}:{}: a relative path: {word}", block.line);
        }
    }
}
