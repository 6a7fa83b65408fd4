//! `stdio-bench`: sequential `tools/call` round trips per second over stdio.
//!
//! Spawns each server as a child process with piped stdin/stdout, does the MCP handshake
//! (`initialize` with protocolVersion 2025-06-18, then `notifications/initialized`), reads the
//! server's idle RSS from /proc, warms up, then times N sequential `tools/call add_numbers
//! {"a":1,"b":2}` round trips: write one line, read lines until the response with that id
//! arrives (notifications are skipped), one `Instant` pair per call.
//!
//! A round starts all the servers at once (idle, after their handshake and warm-up), then makes
//! the timed calls in slices (500 calls to one server, then 500 to the next, the order rotating),
//! so a burst of noise on the shared machine hits every server alike. calls/s is the server's
//! timed calls over the wall time of its slices. Each round uses fresh processes; each server's
//! best round (by calls/s) is reported (2 rounds by default).
//!
//! All of that is done under three placements (`--pin`): `free` (wherever the scheduler puts
//! the processes), `one-cpu` (the driver and the servers share one CPU) and `two-cpus` (the
//! driver on one, the servers on another, so every message wakes a process across CPUs). On a
//! virtual machine a cross-CPU wake-up costs tens of microseconds, and whether the scheduler
//! keeps a server beside its client depends on how long the server works per call, so `free`
//! alone compares placements as much as servers. See bench/README.md.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: stdio-bench [options]
  --calls N           timed sequential calls per run (default 20000)
  --warmup N          untimed calls before the timed ones (default 1000)
  --rounds N          rounds, each with fresh processes; each server's best is reported (default 2)
  --slice N           timed calls a server makes before the next server's turn (default 500)
  --only A,B          run only these servers (floor, tooltable, tooltable+log, baseline,
                      rmcp-default, rmcp-tuned)
  --tooltable PATH    conformance-server binary (default <repo>/target/release/conformance-server),
                      run twice: without its call log (tooltable, RUST_LOG=warn) and with it
                      (tooltable+log, the default filter, stderr to /dev/null)
  --baseline PATH     another conformance-server binary (the previous main, say), run beside as
                      `baseline` (RUST_LOG=warn), so a change is compared with it in one run
  --floor PATH        floor-server binary        (default <bench>/target/release/floor-server)
  --rmcp-default PATH rmcp-default binary        (default <bench>/target/release/rmcp-default)
  --rmcp-tuned PATH   rmcp-tuned binary          (default <bench>/target/release/rmcp-tuned)
  --pin P,Q           placements to measure: free, one-cpu, two-cpus (default: all three)
  --build-times       also time clean release builds of conformance-server and rmcp-default
                      (fresh --target-dir under /tmp; takes minutes)
";

struct Server {
    name: &'static str,
    program: PathBuf,
    args: Vec<&'static str>,
    /// `RUST_LOG` for the server; none leaves the driver's environment as it is.
    log_filter: Option<&'static str>,
}

/// The command line's log filter when `RUST_LOG` is unset: warnings and the call log.
const DEFAULT_LOG: &str = "warn,tooltable::calls=info";

/// Where the driver and the servers run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// Wherever the scheduler puts them.
    Free,
    /// The driver and every server on one CPU: the work per call, with no cross-CPU wake-up.
    OneCpu,
    /// The driver on one CPU, the servers on another: every message crosses CPUs.
    TwoCpus,
}

impl Placement {
    fn parse(name: &str) -> Result<Placement, String> {
        match name {
            "free" => Ok(Placement::Free),
            "one-cpu" => Ok(Placement::OneCpu),
            "two-cpus" => Ok(Placement::TwoCpus),
            other => Err(format!("--pin: unknown placement {other} (free, one-cpu, two-cpus)")),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Placement::Free => "free: driver and servers wherever the scheduler puts them",
            Placement::OneCpu => "one-cpu: driver and servers pinned to one CPU",
            Placement::TwoCpus => "two-cpus: driver pinned to one CPU, servers to another",
        }
    }
}

/// The CPUs this process may run on, from `sched_getaffinity`.
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the call fills it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: passes the size of the set we own.
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) } != 0 {
        return Vec::new();
    }
    // SAFETY: reads bits of the set filled above.
    (0..libc::CPU_SETSIZE as usize).filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) }).collect()
}

/// Restricts the calling thread (and the processes it starts later) to `cpus`.
fn pin(cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: as in `allowed_cpus`.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        // SAFETY: sets a bit of the set we own; cpu < CPU_SETSIZE, as it came from allowed_cpus.
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: passes the size of the set we own.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

struct Options {
    placements: Vec<Placement>,
    calls: usize,
    warmup: usize,
    rounds: usize,
    slice: usize,
    only: Option<Vec<String>>,
    build_times: bool,
    repo: PathBuf,
    bench: PathBuf,
    servers: Vec<Server>,
}

fn parse_args() -> Result<Options, String> {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("bench dir").to_path_buf();
    let repo = bench.parent().expect("repo dir").to_path_buf();
    let release = bench.join("target/release");
    let mut tooltable = repo.join("target/release/conformance-server");
    let mut floor = release.join("floor-server");
    let mut rmcp_default = release.join("rmcp-default");
    let mut rmcp_tuned = release.join("rmcp-tuned");
    let mut baseline: Option<PathBuf> = None;
    let (mut calls, mut warmup, mut rounds, mut slice, mut only, mut build_times) =
        (20_000, 1_000, 2, 500, None, false);
    let mut placements = vec![Placement::Free, Placement::OneCpu, Placement::TwoCpus];

    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |v: String| v.replace('_', "").parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--calls" => calls = number(value()?)?,
            "--warmup" => warmup = number(value()?)?,
            "--rounds" => rounds = number(value()?)?.max(1),
            "--slice" => slice = number(value()?)?.max(1),
            "--only" => only = Some(value()?.split(',').map(str::to_owned).collect()),
            "--tooltable" => tooltable = value()?.into(),
            "--baseline" => baseline = Some(value()?.into()),
            "--floor" => floor = value()?.into(),
            "--rmcp-default" => rmcp_default = value()?.into(),
            "--rmcp-tuned" => rmcp_tuned = value()?.into(),
            "--pin" => placements = value()?.split(',').map(Placement::parse).collect::<Result<_, _>>()?,
            "--build-times" => build_times = true,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if calls == 0 {
        return Err("--calls must be at least 1".into());
    }
    let mut servers = vec![
        Server { name: "floor", program: floor, args: vec![], log_filter: None },
        // Like the floor and rmcp, which write nothing per call: the engine's own cost.
        Server { name: "tooltable", program: tooltable.clone(), args: vec!["mcp"], log_filter: Some("warn") },
        // The command line's default filter, which writes the call log (a line per call).
        Server { name: "tooltable+log", program: tooltable, args: vec!["mcp"], log_filter: Some(DEFAULT_LOG) },
        Server { name: "rmcp-default", program: rmcp_default, args: vec![], log_filter: None },
        Server { name: "rmcp-tuned", program: rmcp_tuned, args: vec![], log_filter: None },
    ];
    if let Some(program) = baseline {
        servers.insert(3, Server { name: "baseline", program, args: vec!["mcp"], log_filter: Some("warn") });
    }
    Ok(Options { placements, calls, warmup, rounds, slice, only, build_times, repo, bench, servers })
}

/// One spawned server and the client end of its pipes.
struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
    out: Vec<u8>,
}

/// Just enough of a response to match it to its request.
#[derive(serde::Deserialize)]
struct Response {
    #[serde(default)]
    id: Option<u64>,
    #[serde(default)]
    error: Option<serde::de::IgnoredAny>,
}

const CALL_PREFIX: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
const CALL_SUFFIX: &[u8] = br#","method":"tools/call","params":{"name":"add_numbers","arguments":{"a":1,"b":2}}}"#;

impl Client {
    /// Starts `server`, on `cpu` when given (else where the driver may run).
    fn spawn(server: &Server, cpu: Option<usize>) -> Result<Self, String> {
        let mut command = Command::new(&server.program);
        if let Some(cpu) = cpu {
            use std::os::unix::process::CommandExt;
            // SAFETY: sched_setaffinity is async-signal-safe; nothing is allocated after fork.
            unsafe { command.pre_exec(move || pin(&[cpu])) };
        }
        if let Some(filter) = server.log_filter {
            command.env("RUST_LOG", filter);
        }
        let mut child = command
            .args(&server.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: cannot start {}: {e}", server.name, server.program.display()))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::with_capacity(64 * 1024, child.stdout.take().expect("piped stdout"));
        Ok(Self { child, stdin, stdout, line: String::new(), out: Vec::with_capacity(256) })
    }

    fn send(&mut self, line: &[u8]) -> Result<(), String> {
        self.out.clear();
        self.out.extend_from_slice(line);
        self.out.push(b'\n');
        self.stdin.write_all(&self.out).map_err(|e| format!("write: {e}"))
    }

    /// Reads lines until the response with `id`; leaves it in `self.line`.
    fn wait_for(&mut self, id: u64) -> Result<(), String> {
        loop {
            self.line.clear();
            let n = self.stdout.read_line(&mut self.line).map_err(|e| format!("read: {e}"))?;
            if n == 0 {
                return Err(format!("server closed stdout while waiting for id {id}"));
            }
            let response: Response =
                serde_json::from_str(&self.line).map_err(|e| format!("bad line {:?}: {e}", self.line.trim_end()))?;
            if response.id == Some(id) {
                if response.error.is_some() {
                    return Err(format!("error response: {}", self.line.trim_end()));
                }
                return Ok(());
            }
        }
    }

    fn handshake(&mut self) -> Result<(), String> {
        self.send(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"stdio-bench","version":"0.1.0"}}}"#)?;
        self.wait_for(0)?;
        self.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
    }

    /// One `tools/call add_numbers {"a":1,"b":2}` round trip.
    fn call(&mut self, id: u64) -> Result<(), String> {
        self.out.clear();
        self.out.extend_from_slice(CALL_PREFIX);
        self.out.extend_from_slice(id.to_string().as_bytes());
        self.out.extend_from_slice(CALL_SUFFIX);
        self.out.push(b'\n');
        self.stdin.write_all(&self.out).map_err(|e| format!("write: {e}"))?;
        self.wait_for(id)
    }

    /// Checks that the last response read is `structuredContent: {"sum": 3}`.
    fn check_sum(&self) -> Result<(), String> {
        let value: serde_json::Value = serde_json::from_str(&self.line).map_err(|e| e.to_string())?;
        let sum = value.pointer("/result/structuredContent/sum").and_then(serde_json::Value::as_f64);
        if sum == Some(3.0) { Ok(()) } else { Err(format!("unexpected result: {}", self.line.trim_end())) }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes stdin and waits (up to 3 s) for the server to exit, killing it after that.
    fn finish(self) {
        let Client { mut child, stdin, .. } = self;
        drop(stdin);
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// A field of /proc/PID/status in kB (VmRSS, VmHWM) or as a count (Threads).
fn proc_status(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))?;
    line[field.len() + 1..].split_whitespace().next()?.parse().ok()
}

struct Run {
    calls_per_sec: f64,
    p50_us: f64,
    p99_us: f64,
    mean_us: f64,
    idle_rss_kb: u64,
    end_rss_kb: u64,
    threads: u64,
}

/// One server's side of a round: its process, the next request id and the timings so far.
struct Live<'a> {
    server: &'a Server,
    client: Client,
    next_id: u64,
    nanos: Vec<u64>,
    busy: Duration,
    idle_rss_kb: u64,
    threads: u64,
}

impl Live<'_> {
    fn call(&mut self) -> Result<(), String> {
        self.next_id += 1;
        self.client.call(self.next_id)
    }
}

/// One round: every server is started, shaken hands with, measured idle and warmed up; then the
/// timed calls go in slices of `slice` calls, server after server (the order rotating each
/// slice), so a burst of noise from the shared machine hits all of them alike.
fn run_round(
    servers: &[&Server],
    server_cpu: Option<usize>,
    calls: usize,
    warmup: usize,
    slice: usize,
) -> Result<Vec<Run>, String> {
    let mut live = Vec::new();
    let result = (|| -> Result<Vec<Run>, String> {
        for &server in servers {
            let client = Client::spawn(server, server_cpu)?;
            live.push(Live {
                server,
                client,
                next_id: 0,
                nanos: Vec::with_capacity(calls),
                busy: Duration::ZERO,
                idle_rss_kb: 0,
                threads: 0,
            });
            let l = live.last_mut().expect("just pushed");
            l.client.handshake().map_err(|e| format!("{}: {e}", server.name))?;
        }
        // Let each server finish reacting to `initialized`, then read its idle footprint.
        std::thread::sleep(Duration::from_millis(200));
        for l in &mut live {
            l.idle_rss_kb = proc_status(l.client.pid(), "VmRSS").unwrap_or(0);
            l.threads = proc_status(l.client.pid(), "Threads").unwrap_or(0);
        }
        for l in &mut live {
            let name = l.server.name;
            l.call().and_then(|()| l.client.check_sum()).map_err(|e| format!("{name}: {e}"))?;
            for _ in 1..warmup {
                l.call().map_err(|e| format!("{name}: {e}"))?;
            }
        }
        let n = live.len();
        let mut done = 0;
        let mut turn = 0;
        while done < calls {
            let this_slice = slice.min(calls - done);
            for k in 0..n {
                let l = &mut live[(turn + k) % n];
                let name = l.server.name;
                let start = Instant::now();
                for _ in 0..this_slice {
                    let t = Instant::now();
                    l.call().map_err(|e| format!("{name}: {e}"))?;
                    l.nanos.push(t.elapsed().as_nanos() as u64);
                }
                l.busy += start.elapsed();
            }
            done += this_slice;
            turn += 1;
        }
        let mut runs = Vec::new();
        for l in &mut live {
            l.client.check_sum().map_err(|e| format!("{}: {e}", l.server.name))?;
            let end_rss_kb = proc_status(l.client.pid(), "VmRSS").unwrap_or(0);
            l.nanos.sort_unstable();
            let nanos = &l.nanos;
            let pct = |p: f64| nanos[((nanos.len() as f64 * p).ceil() as usize).clamp(1, nanos.len()) - 1] as f64 / 1e3;
            runs.push(Run {
                calls_per_sec: calls as f64 / l.busy.as_secs_f64(),
                p50_us: pct(0.50),
                p99_us: pct(0.99),
                mean_us: l.busy.as_secs_f64() * 1e6 / calls as f64,
                idle_rss_kb: l.idle_rss_kb,
                end_rss_kb,
                threads: l.threads,
            });
        }
        Ok(runs)
    })();
    for l in live {
        l.client.finish();
    }
    result
}

/// The table of each server's best round, and the ratios against the targets.
fn report(servers: &[&Server], best: &[Option<Run>]) {
    println!(
        "\n{:<14} {:>10} {:>9} {:>9} {:>9} {:>10} {:>10} {:>8}",
        "server", "calls/s", "p50 µs", "p99 µs", "mean µs", "idle RSS", "RSS after", "threads"
    );
    for (server, run) in servers.iter().zip(best) {
        let r = run.as_ref().expect("every server ran");
        println!(
            "{:<14} {:>10.0} {:>9.1} {:>9.1} {:>9.1} {:>10} {:>10} {:>8}",
            server.name,
            r.calls_per_sec,
            r.p50_us,
            r.p99_us,
            r.mean_us,
            mb(r.idle_rss_kb),
            mb(r.end_rss_kb),
            r.threads
        );
    }

    let get = |name: &str| servers.iter().position(|s| s.name == name).and_then(|i| best[i].as_ref());
    let Some(tt) = get("tooltable") else { return };
    println!("\nratios (targets are reported, not asserted):");
    if let Some(rd) = get("rmcp-default") {
        let x = tt.calls_per_sec / rd.calls_per_sec;
        println!("  tooltable / rmcp-default calls/s      {x:>6.2}x   target >= 1.5x   {}", verdict(x >= 1.5));
    }
    if let Some(rt) = get("rmcp-tuned") {
        let x = tt.calls_per_sec / rt.calls_per_sec;
        println!("  tooltable / rmcp-tuned calls/s        {x:>6.2}x   target >  1.0x   {}", verdict(x > 1.0));
    }
    if let Some(fl) = get("floor") {
        let x = fl.calls_per_sec / tt.calls_per_sec;
        println!("  tooltable / floor time per call       {x:>6.2}x   target <= 1.2x   {}", verdict(x <= 1.2));
        if let Some(logged) = get("tooltable+log") {
            let x = fl.calls_per_sec / logged.calls_per_sec;
            println!("  (tooltable+log / floor time per call  {x:>6.2}x: the call log's line per call included)");
        }
        if let Some(base) = get("baseline") {
            let x = fl.calls_per_sec / base.calls_per_sec;
            println!("  (baseline / floor time per call       {x:>6.2}x)");
        }
    }
    if let Some(base) = get("baseline") {
        let x = tt.calls_per_sec / base.calls_per_sec;
        println!("  (tooltable / baseline calls/s         {x:>6.2}x: the change, from the same run)");
    }
    // Medians move far less than means on a shared machine: shown beside, for reference.
    let p50 = |name: &str| get(name).map(|r| r.p50_us);
    if let Some(rd) = p50("rmcp-default") {
        println!("  (p50 latency: rmcp-default / tooltable = {:.2}x)", rd / tt.p50_us);
    }
    if let Some(rt) = p50("rmcp-tuned") {
        println!("  (p50 latency: rmcp-tuned / tooltable   = {:.2}x)", rt / tt.p50_us);
    }
    if let Some(fl) = p50("floor") {
        println!("  (p50 latency: tooltable / floor        = {:.2}x)", tt.p50_us / fl);
    }
    let rss = tt.idle_rss_kb as f64 / 1024.0;
    println!("  tooltable idle RSS                    {rss:>5.1} MB   target <  10 MB   {}", verdict(rss < 10.0));
}

fn mb(kb: u64) -> String {
    format!("{:.1} MB", kb as f64 / 1024.0)
}

fn verdict(ok: bool) -> &'static str {
    if ok { "met" } else { "MISSED" }
}

fn build_times(opts: &Options) -> Result<(), String> {
    let base = std::env::temp_dir().join(format!("stdio-bench-build-{}", std::process::id()));
    let builds: [(&str, &Path, Vec<&str>); 2] = [
        ("tooltable conformance-server", &opts.repo, vec!["-p", "conformance-server"]),
        ("rmcp-default", &opts.bench, vec!["-p", "rmcp-server", "--bin", "rmcp-default"]),
    ];
    println!("\nclean release builds (fresh --target-dir under {}, sequential, 2 cores):", base.display());
    let mut result = Ok(());
    for (name, dir, extra) in builds {
        let target = base.join(name.split(' ').next().unwrap_or(name));
        let start = Instant::now();
        let output = Command::new("cargo")
            .current_dir(dir)
            .args(["build", "--release", "--quiet", "--target-dir"])
            .arg(&target)
            .args(&extra)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("cargo: {e}"))?;
        let secs = start.elapsed().as_secs_f64();
        if output.status.success() {
            println!("  {name:<30} {secs:>7.1} s");
        } else {
            result = Err(format!("{name}: build failed:\n{}", String::from_utf8_lossy(&output.stderr)));
            break;
        }
    }
    let _ = std::fs::remove_dir_all(&base);
    result
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(opts) => opts,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("stdio-bench: {message}");
            }
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let servers: Vec<&Server> = opts
        .servers
        .iter()
        .filter(|s| opts.only.as_ref().is_none_or(|only| only.iter().any(|o| o == s.name)))
        .collect();

    println!(
        "stdio tools/call add_numbers {{\"a\":1,\"b\":2}}: {} sequential calls per server per round after {} warm-up calls,\n\
         interleaved in slices of {} calls; {} round(s) with fresh processes, each server's best round reported",
        opts.calls, opts.warmup, opts.slice, opts.rounds
    );
    let cpus = allowed_cpus();
    for &placement in &opts.placements {
        println!("\n== {}", placement.describe());
        let server_cpu = match placement {
            Placement::Free => pin(&cpus).map(|()| None),
            Placement::OneCpu => pin(&cpus[..1]).map(|()| None),
            Placement::TwoCpus if cpus.len() < 2 => {
                println!("   skipped: this process may run on one CPU only");
                continue;
            }
            Placement::TwoCpus => pin(&cpus[..1]).map(|()| Some(cpus[1])),
        };
        let server_cpu = match server_cpu {
            Ok(cpu) => cpu,
            Err(e) => {
                eprintln!("stdio-bench: cannot set the CPU affinity: {e}");
                return ExitCode::FAILURE;
            }
        };
        let mut best: Vec<Option<Run>> = servers.iter().map(|_| None).collect();
        for round in 0..opts.rounds {
            let runs = match run_round(&servers, server_cpu, opts.calls, opts.warmup, opts.slice) {
                Ok(runs) => runs,
                Err(e) => {
                    eprintln!("stdio-bench: {e}");
                    return ExitCode::FAILURE;
                }
            };
            for (i, run) in runs.into_iter().enumerate() {
                println!(
                    "  round {} {:<14} {:>9.0} calls/s  p50 {:>6.1} µs  p99 {:>6.1} µs",
                    round + 1,
                    servers[i].name,
                    run.calls_per_sec,
                    run.p50_us,
                    run.p99_us
                );
                if best[i].as_ref().is_none_or(|b| run.calls_per_sec > b.calls_per_sec) {
                    best[i] = Some(run);
                }
            }
        }
        report(&servers, &best);
    }

    if opts.build_times
        && let Err(e) = build_times(&opts)
    {
        eprintln!("stdio-bench: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
