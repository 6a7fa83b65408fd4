//! A real PostgreSQL server for the tests: `initdb` into a temporary directory, `postgres` on a
//! free 127.0.0.1 port, stopped and removed on drop. Run as root (as CI is), the server runs as
//! the unprivileged `postgres` user, which PostgreSQL insists on. The programs are found by
//! `test_support::POSTGRES`; a test that starts a server carries
//! `#[cfg_attr(not(has_postgres), ignore = "...")]`, so a machine without PostgreSQL ignores it,
//! saying why, rather than pass it by not running it.

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The superuser's password: connections over TCP must give it (`scram-sha-256`), so that a
/// test can check it shows nowhere.
pub const PASSWORD: &str = "pw-Zq8sSecret";
const USER: &str = "valem";
const READY_WITHIN: Duration = Duration::from_secs(60);

pub struct Postgres {
    dir: PathBuf,
    port: u16,
    server: Child,
}

/// The uid and gid the server runs as: ours, unless we are root, then `postgres`'s.
fn server_user() -> Option<(u32, u32)> {
    let uid = run_output(Command::new("id").arg("-u"))?;
    if uid != "0" {
        return None;
    }
    let uid = run_output(Command::new("id").args(["-u", "postgres"]));
    let gid = run_output(Command::new("id").args(["-g", "postgres"]));
    match (uid.and_then(|u| u.parse().ok()), gid.and_then(|g| g.parse().ok())) {
        (Some(uid), Some(gid)) => Some((uid, gid)),
        _ => panic!(
            "running as root, PostgreSQL needs an unprivileged user to run as, and there is no `postgres` user \
             (Debian's postgresql package creates it)"
        ),
    }
}

fn run_output(command: &mut Command) -> Option<String> {
    let out = command.output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port on 127.0.0.1").port()
}

fn temp_dir() -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = format!("valem-pg-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let dir = std::env::temp_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// `command` run as `user` when given (we are root), else as ourselves.
fn as_user(mut command: Command, user: Option<(u32, u32)>) -> Command {
    if let Some((uid, gid)) = user {
        use std::os::unix::process::CommandExt;
        command.uid(uid).gid(gid);
    }
    command
}

impl Postgres {
    /// A fresh server, ready for connections; panics with the reason when there can be none
    /// (PostgreSQL absent: what to install).
    /// The tests kill valem, never the server: it does not flush to disk, which only slows them.
    pub fn start() -> Postgres {
        Postgres::start_with(&["fsync=off", "full_page_writes=off"])
    }

    /// A fresh server with `settings` (`name=value`) beside the defaults: none for one that
    /// flushes every commit to disk as a production server does.
    pub fn start_with(settings: &[&str]) -> Postgres {
        let bin = test_support::POSTGRES.path();
        let user = server_user();
        let dir = temp_dir();
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).expect("the temporary directory given to postgres");
        }
        let pwfile = dir.join("password");
        std::fs::write(&pwfile, PASSWORD).expect("the password file");
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(&pwfile, Some(uid), Some(gid)).expect("the password file given to postgres");
        }
        let data = dir.join("data");
        let mut initdb = as_user(Command::new(bin.join("initdb")), user);
        initdb
            .arg("-D")
            .arg(&data)
            .args(["-U", USER, "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C"])
            .arg(format!("--pwfile={}", pwfile.display()))
            // A test server is thrown away: no fsync of the new cluster.
            .arg("--no-sync");
        let out = initdb.output().unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.join("initdb").display()));
        assert!(out.status.success(), "initdb failed: {}", String::from_utf8_lossy(&out.stderr));
        // The port is free when picked; another process may take it before the server binds it,
        // so a server that exits at once is tried again on another.
        for _ in 0..3 {
            let port = free_port();
            let server = Postgres::spawn(&bin, &dir, &data, port, user, settings);
            let mut started = Postgres { dir: dir.clone(), port, server };
            match started.wait_ready() {
                Ok(()) => return started,
                Err(log) if log.contains("could not bind") || log.contains("already in use") => {
                    std::mem::forget(started);
                }
                Err(log) => panic!("PostgreSQL did not start on port {port}: {log}"),
            }
        }
        panic!("PostgreSQL found no free port in three tries");
    }

    fn spawn(bin: &Path, dir: &Path, data: &Path, port: u16, user: Option<(u32, u32)>, settings: &[&str]) -> Child {
        let log = std::fs::File::create(dir.join(format!("server-{port}.log"))).expect("the server's log file");
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(dir.join(format!("server-{port}.log")), Some(uid), Some(gid))
                .expect("the log given to postgres");
        }
        let mut postgres = as_user(Command::new(bin.join("postgres")), user);
        postgres
            .arg("-D")
            .arg(data)
            .arg("-p")
            .arg(port.to_string())
            .arg("-k")
            .arg(dir)
            .args(["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"])
            .args(settings.iter().flat_map(|s| ["-c", s]))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        postgres.spawn().unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.join("postgres").display()))
    }

    /// Waits until the server accepts a connection; its log when it exits or never does.
    fn wait_ready(&mut self) -> Result<(), String> {
        let start = Instant::now();
        while start.elapsed() < READY_WITHIN {
            if let Ok(Some(status)) = self.server.try_wait() {
                return Err(format!("it exited ({status}): {}", self.log()));
            }
            if postgres::Client::connect(&self.url("postgres"), postgres::NoTls).is_ok() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(format!("not ready within {READY_WITHIN:?}: {}", self.log()))
    }

    fn log(&self) -> String {
        let mut text = String::new();
        let _ = std::fs::File::open(self.dir.join(format!("server-{}.log", self.port)))
            .and_then(|mut f| f.read_to_string(&mut text));
        text
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of database `db` on this server, with the user and password.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://{USER}:{PASSWORD}@127.0.0.1:{}/{db}", self.port)
    }

    /// A superuser connection to database `db`, for a test to look and meddle.
    pub fn connect(&self, db: &str) -> postgres::Client {
        postgres::Client::connect(&self.url(db), postgres::NoTls)
            .unwrap_or_else(|e| panic!("cannot connect to the test server: {e}"))
    }

    /// A new empty database; its URL.
    pub fn database(&self, name: &str) -> String {
        self.connect("postgres")
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .unwrap_or_else(|e| panic!("cannot create database {name}: {e}"));
        self.url(name)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // SIGINT is PostgreSQL's fast shutdown: it ends every backend and exits cleanly.
        let _ = Command::new("kill").args(["-INT", &self.server.id().to_string()]).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.server.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.server.kill();
        let _ = self.server.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
