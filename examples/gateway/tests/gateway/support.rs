//! The processes of the tests: the servers' binaries (built when missing), the entity server
//! on a port that survives its restart, the gateway over stdio or HTTP, and a client of it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tooltable::context::Era;
use tooltable_transports::client::{Client, Options, Target};

pub const GATEWAY: &str = env!("CARGO_BIN_EXE_gateway");

/// The workspace's root folder.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).expect("examples/gateway is in the workspace").to_owned()
}

/// The binary of a workspace package, built first when it is missing (once per run): it sits
/// beside the gateway's.
pub fn binary(package: &str) -> String {
    static BUILDING: Mutex<()> = Mutex::new(());
    let _one_at_a_time = BUILDING.lock().unwrap_or_else(|p| p.into_inner());
    let path = Path::new(GATEWAY).with_file_name(package);
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
    path.display().to_string()
}

/// A process that is killed when dropped.
pub struct Process(Child);

impl Process {
    /// The processes it started (Linux: read from `/proc`).
    pub fn children(&self) -> Vec<u32> {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", self.0.id())).into_iter().flatten().flatten();
        let lists = tasks.filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok());
        lists.flat_map(|list| list.split_whitespace().filter_map(|p| p.parse().ok()).collect::<Vec<_>>()).collect()
    }

    pub fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts `program args... serve --listen ADDR` and reads its endpoint from its startup line.
fn serve(program: &str, args: &[String], listen: &str) -> (Process, String) {
    let mut child = Command::new(program)
        .args(args)
        .args(["serve", "--listen", listen])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} does not start: {e}"));
    let stderr = child.stderr.take().expect("stderr is piped");
    let mut lines = BufReader::new(stderr).lines();
    // Warnings may come first: the endpoint is the first word after `listening on `.
    let line = lines.by_ref().map_while(Result::ok).find(|l| l.starts_with("listening on ")).unwrap_or_default();
    let url = line.split_whitespace().nth(2).unwrap_or_else(|| panic!("{program} printed no address")).to_owned();
    std::thread::spawn(move || lines.for_each(drop));
    (Process(child), url)
}

/// The entity repository server over HTTP; [`Entities::restart`] brings it back on its port.
pub struct Entities {
    pub process: Process,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
}

impl Entities {
    pub fn start() -> Entities {
        Entities::on("127.0.0.1:0")
    }

    fn on(listen: &str) -> Entities {
        let root = workspace().join("servers/entities/examples/full").display().to_string();
        let (process, url) = serve(&binary("entities"), &["--root".into(), root], listen);
        Entities { process, url }
    }

    /// Started again on the same address, once the old process is gone.
    pub fn restart(&mut self) {
        self.process.kill();
        let authority = self.url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
        *self = Entities::on(&authority);
    }
}

/// The gateway's arguments before its command: the conformance server as `conf`, the entity
/// server as `ent`, and anything else.
pub fn mounts(entities: &Entities, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "--mount".to_owned(),
        format!("conf={} mcp", binary("conformance-server")),
        "--mount".to_owned(),
        format!("ent={}", entities.url),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// The client of the tests: it can be asked for everything the upstreams ask.
pub fn options(era: Era) -> Options {
    Options::default()
        .era(era)
        .capabilities(json!({ "sampling": {}, "elicitation": {}, "roots": {} }))
        .log_level("debug")
        .timeout(Duration::from_secs(30))
        .connect_timeout(Duration::from_secs(30))
}

/// The gateway over stdio, the client speaking `era`.
pub async fn over_stdio(args: Vec<String>, era: Era) -> Client {
    let mut args = args;
    args.push("mcp".into());
    Client::connect(Target::command(GATEWAY, args), options(era)).await.unwrap_or_else(|e| panic!("{e}"))
}

/// Sends a process a signal (`KILL`, `STOP`) by its id.
pub fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill").args([&format!("-{signal}"), &pid.to_string()]).status();
    assert!(status.is_ok_and(|s| s.success()), "kill -{signal} {pid}");
}

/// The gateway over HTTP, the client speaking `era`.
pub async fn over_http(args: Vec<String>, era: Era) -> (Process, Client) {
    let (process, url) = serve(GATEWAY, &args, "127.0.0.1:0");
    let client = Client::connect(Target::url(url), options(era)).await.unwrap_or_else(|e| panic!("{e}"));
    (process, client)
}

/// A tool call's result.
pub async fn call(client: &Client, tool: &str, arguments: Value) -> Value {
    let params = json!({ "name": tool, "arguments": arguments });
    client.request("tools/call", params).await.unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// Polls `check` every 100 ms until it gives a value, at most `bound`; the value, or the panic
/// naming `what` and the last thing seen. How long it took is printed, not asserted.
pub async fn until<T>(bound: Duration, what: &str, mut check: impl AsyncFnMut() -> Result<T, String>) -> T {
    let started = Instant::now();
    loop {
        match check().await {
            Ok(value) => {
                eprintln!("{what}: after {:?}", started.elapsed());
                return value;
            }
            Err(last) if started.elapsed() > bound => panic!("{what} did not happen within {bound:?}; last: {last}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}
