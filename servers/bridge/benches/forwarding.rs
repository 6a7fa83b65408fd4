//! A capability call through the bridge (MCP over stdio, forwarded over HTTP) against the same
//! call made directly to the hub's REST route, both on kept-alive connections, sequentially:
//! the difference is what the bridge costs. `cargo bench -p bridge` (sizes: `BENCH_CALLS`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_bridge");
const TOKEN: &str = "bench-token";
const BODY: &str = r#"{"command":"git status && cargo test -p bridge | tail -n 20"}"#;

fn main() {
    let calls: usize = std::env::var("BENCH_CALLS").ok().and_then(|n| n.parse().ok()).unwrap_or(2000);
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hub");
    let (mut hub, addr) = start_hub(&config);

    let mut direct = Direct::connect(&addr);
    let rest = measure(calls, || direct.call());
    let mut bridge = Bridge::start(&addr);
    let mcp = measure(calls, || bridge.call());

    println!("{calls} sequential calls of tool.risk, after {} warm-up calls each", calls / 10);
    report("direct REST call to the hub", &rest);
    report("through the bridge (stdio MCP)", &mcp);
    let median = |v: &[Duration]| v[v.len() / 2];
    println!(
        "the bridge adds {:.1} µs a call at the median",
        (median(&mcp).as_secs_f64() - median(&rest).as_secs_f64()) * 1e6
    );
    drop(bridge);
    let _ = hub.kill();
    let _ = hub.wait();
}

fn start_hub(config: &Path) -> (Child, String) {
    let mut hub = Command::new(BIN)
        .args(["hub", "--config"])
        .arg(config)
        .args(["--listen", "127.0.0.1:0", "--token", TOKEN])
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hub starts");
    let mut lines = BufReader::new(hub.stderr.take().unwrap()).lines();
    let addr = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| {
            l.strip_prefix("listening on http://")
                .map(|r| r.chars().take_while(|c| !c.is_whitespace() && *c != '/').collect())
        })
        .expect("the hub prints its address");
    std::thread::spawn(move || lines.for_each(drop));
    (hub, addr)
}

/// Each call's time, sorted, after a warm-up of a tenth as many calls.
fn measure(calls: usize, mut call: impl FnMut()) -> Vec<Duration> {
    for _ in 0..calls / 10 {
        call();
    }
    let mut times: Vec<Duration> = (0..calls)
        .map(|_| {
            let start = Instant::now();
            call();
            start.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn report(what: &str, times: &[Duration]) {
    let total: Duration = times.iter().sum();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)].as_secs_f64() * 1e6;
    println!(
        "{what:32} median {:7.1} µs   p90 {:7.1} µs   p99 {:7.1} µs   {:8.0} calls/s",
        at(0.5),
        at(0.9),
        at(0.99),
        times.len() as f64 / total.as_secs_f64()
    );
}

/// HTTP/1.1 on one kept-alive connection.
struct Direct {
    stream: BufReader<TcpStream>,
    request: Vec<u8>,
}

impl Direct {
    fn connect(addr: &str) -> Direct {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_nodelay(true).unwrap();
        let request = format!(
            "POST /v1/capabilities/tool.risk/call HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{BODY}",
            BODY.len()
        );
        Direct { stream: BufReader::new(stream), request: request.into_bytes() }
    }

    fn call(&mut self) {
        self.stream.get_mut().write_all(&self.request).unwrap();
        let mut length = 0;
        let mut line = String::new();
        loop {
            line.clear();
            self.stream.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        self.stream.read_exact(&mut body).unwrap();
        assert!(body.starts_with(br#"{"status":"ok""#), "{}", String::from_utf8_lossy(&body));
    }
}

/// `bridge mcp` with a client on its stdin and stdout.
struct Bridge {
    child: Child,
    out: BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl Bridge {
    fn start(addr: &str) -> Bridge {
        let mut child = Command::new(BIN)
            .args(["mcp", "--addr", addr, "--token", TOKEN])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the bridge starts");
        let out = BufReader::new(child.stdout.take().unwrap());
        let mut bridge = Bridge { child, out, next_id: 1 };
        bridge.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#);
        bridge.read_answer("\"id\":0");
        bridge.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        bridge
    }

    fn send(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn read_answer(&mut self, id: &str) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.out.read_line(&mut line).unwrap() > 0, "the bridge ended");
            if line.contains(id) {
                return line;
            }
        }
    }

    fn call(&mut self) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"tool_risk","arguments":{BODY}}}}}"#
        ));
        let answer = self.read_answer(&format!("\"id\":{id},"));
        assert!(answer.contains("\"isError\":false"), "{answer}");
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}
