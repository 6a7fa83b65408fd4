//! The servers' binaries, started on a free loopback port, and the server that forwards to them.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;

use serde_json::Value;
use tooltable::Server;
use tooltable_transports::forward::{Options, Remote};

/// The workspace's root folder.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("transports/ is in the workspace").to_owned()
}

/// The folder cargo puts this build's binaries in: the test binary's `deps/` folder's parent.
fn binaries() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.ancestors()
        .find(|d| d.ends_with("deps"))
        .and_then(Path::parent)
        .expect("the test binary is under deps/")
        .to_owned()
}

/// The binary of a workspace package, built first when it is missing (once per run).
pub fn binary(package: &str) -> PathBuf {
    static BUILDING: Mutex<()> = Mutex::new(());
    let _one_at_a_time = BUILDING.lock().unwrap_or_else(|p| p.into_inner());
    let path = binaries().join(package);
    if !path.is_file() {
        eprintln!("{} is not built; building it: cargo build -p {package}", path.display());
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo).args(["build", "-p", package]).current_dir(workspace()).status();
        assert!(
            status.is_ok_and(|s| s.success()) && path.is_file(),
            "{} could not be built; run `cargo build -p {package}` and look at its errors",
            path.display()
        );
    }
    path
}

/// A server process serving HTTP; killed when dropped.
pub struct Served {
    pub child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `package` with `args` then `serve --listen 127.0.0.1:0`, and reads the address from the
/// startup line (`listening on http://host:port`, followed by anything).
pub fn serve(package: &str, args: &[&str]) -> Served {
    let mut child = Command::new(binary(package))
        .args(args)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{package} does not start: {e}"));
    let stderr = child.stderr.take().expect("stderr is piped");
    let mut lines = BufReader::new(stderr).lines();
    // Warnings may come first (a fixture's root `allOf`, say): the address is on the `listening` line.
    let line = lines.by_ref().map_while(Result::ok).find(|l| l.starts_with("listening on ")).unwrap_or_default();
    let url = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("http://"))
        .map(|rest| {
            rest.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | ':' | '[' | ']')))
                .next()
                .unwrap_or_default()
        })
        .map(|authority| format!("http://{authority}"))
        .unwrap_or_else(|| panic!("{package} printed no address: {line:?}"));
    // The rest of stderr is drained so the server never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    Served { child, url }
}

/// The result of calling a tool in the binary's own process (`PACKAGE ARGS call TOOL JSON`):
/// `Ok(result)` or `Err(failure body)`.
pub fn call_in_process(package: &str, args: &[&str], tool: &str, arguments: &Value) -> Result<Value, Value> {
    let out = Command::new(binary(package))
        .args(args)
        .args(["call", tool, &arguments.to_string()])
        .output()
        .unwrap_or_else(|e| panic!("{package} does not start: {e}"));
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{package} call {tool} printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr))
    });
    if out.status.success() { Ok(printed) } else { Err(printed) }
}

/// The tools the binary describes itself (`PACKAGE ARGS tools`), by name.
pub fn own_descriptors(package: &str, args: &[&str]) -> Vec<Value> {
    let out = Command::new(binary(package)).args(args).arg("tools").output().expect("the binary starts");
    serde_json::from_slice(&out.stdout).expect("`tools` prints JSON")
}

/// A server with no tools of its own and the remote's installed.
pub async fn forwarding(url: &str, options: Options) -> (Server<()>, Remote) {
    let remote = Remote::connect(url, options).await.unwrap_or_else(|e| panic!("{e}"));
    let server = Server::builder(()).info("forwarder", "0.0.0").build().unwrap();
    remote.install(&server).unwrap_or_else(|e| panic!("{e}"));
    (server, remote)
}
