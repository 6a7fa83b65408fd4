//! The `golden` command: record a session from a real host, replay one against any MCP server,
//! and review what a replay that differed left pending.
//!
//! ```text
//! golden record --out FILE.session -- SERVER ARGS...                   a stdio server to its host
//! golden record --out FILE.session --listen ADDR --upstream URL        a reverse proxy over HTTP
//! golden replay FILE.session -- SERVER ARGS...                         over stdio
//! golden replay FILE.session --url URL                                 over Streamable HTTP
//! golden review [PATH...]                                              accept, reject or skip each
//! golden accept [PATH...]
//! golden reject [PATH...]
//! ```
//!
//! A `PATH` is a pending file, the file it would replace, or a folder (every pending file under
//! it); none means the current folder. `replay` exits 0 when the server answers as recorded, 1
//! when it does not (after printing the diff and writing `FILE.session.new`), 2 on an error.
//!
//! A replay that differs exits 1 and leaves what came back pending; `reject` drops it:
//!
//! ```
//! use std::process::ExitCode;
//! use tooltable_golden::cli::run;
//!
//! let dir = std::env::temp_dir().join(format!("golden-doc-cli-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let session = dir.join("ping.session");
//! std::fs::write(&session, "→ {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\n← {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {}}\n")?;
//! let changed = r#"read request; echo '{"jsonrpc":"2.0","id":1,"result":{"late":true}}'"#;
//!
//! let file = session.to_str().unwrap();
//! assert_eq!(run(["golden", "replay", file, "--", "sh", "-c", changed]), ExitCode::from(1));
//! let pending = dir.join("ping.session.new");
//! assert!(std::fs::read_to_string(&pending)?.contains("\"late\": true"));
//! assert_eq!(run(["golden", "reject", pending.to_str().unwrap()]), ExitCode::SUCCESS);
//! assert!(!pending.exists());
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::client::{Client, HttpClient, StdioClient};
use crate::config::Config;
use crate::pending;
use crate::placeholders::Placeholders;
use crate::record::{self, Recorder};
use crate::replay::Replayer;
use crate::review;
use crate::session::SessionFile;

#[derive(Parser)]
#[command(name = "golden", version, about = "Record, replay and review golden sessions of an MCP server")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Record a session: as a stdio server in the real one's place (`-- SERVER ARGS...`), or as a
    /// reverse proxy in front of a Streamable HTTP server (`--listen ADDR --upstream URL`).
    Record {
        /// The session file to write.
        #[arg(long)]
        out: PathBuf,
        /// The address to serve the proxy on (`127.0.0.1:0` picks a free port).
        #[arg(long, requires = "upstream", conflicts_with = "command")]
        listen: Option<String>,
        /// The Streamable HTTP endpoint to forward to (`http://HOST:PORT/mcp`).
        #[arg(long, requires = "listen")]
        upstream: Option<String>,
        /// A value written as `<NAME>` (a path, say), given as NAME=VALUE; repeatable.
        #[arg(long = "literal", value_name = "NAME=VALUE")]
        literals: Vec<String>,
        /// The server's command and arguments, after `--` (or without it: some hosts, such as
        /// the Inspector's CLI, drop a `--` from the command they launch).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "SERVER")]
        command: Vec<String>,
    },
    /// Replay a session against a server started over stdio (`-- SERVER ARGS...`) or reached
    /// over HTTP (`--url URL`).
    Replay {
        /// The session file.
        file: PathBuf,
        /// The server's Streamable HTTP endpoint.
        #[arg(long, conflicts_with = "command")]
        url: Option<String>,
        /// A value the session writes as `<NAME>`, given as NAME=VALUE; repeatable.
        #[arg(long = "literal", value_name = "NAME=VALUE")]
        literals: Vec<String>,
        /// The server's command and arguments, after `--` (or without it: some hosts, such as
        /// the Inspector's CLI, drop a `--` from the command they launch).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "SERVER")]
        command: Vec<String>,
    },
    /// Show each pending file's diff and accept, reject or skip it.
    Review {
        /// Pending files, the files they would replace, or folders (the current one by default).
        paths: Vec<PathBuf>,
    },
    /// Accept pending files (and bring the docs made from accepted sessions up to date).
    Accept {
        /// Pending files, the files they would replace, or folders (the current one by default).
        paths: Vec<PathBuf>,
    },
    /// Reject pending files.
    Reject {
        /// Pending files, the files they would replace, or folders (the current one by default).
        paths: Vec<PathBuf>,
    },
}

/// Runs the command line of this process.
pub fn main() -> ExitCode {
    run(std::env::args_os())
}

/// Runs `golden ARGS` (the first item is the program's name) in this process, on its standard
/// streams: what the binary does, for a test to run a command as a guide writes it.
///
/// ```
/// let code = tooltable_golden::cli::run(["golden", "accept", "no-such-folder/x.session"]);
/// assert_eq!(code, std::process::ExitCode::from(2));
/// ```
pub fn run<I: Into<std::ffi::OsString> + Clone>(args: impl IntoIterator<Item = I>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match execute(cli.command) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("golden: {message}");
            ExitCode::from(2)
        }
    }
}

fn execute(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Record { out, listen, upstream, literals, command } => {
            let placeholders = placeholders(&out, &literals)?;
            runtime()?.block_on(record(&out, placeholders, listen.zip(upstream), &command))
        }
        Command::Replay { file, url, literals, command } => {
            let placeholders = placeholders(&file, &literals)?;
            runtime()?.block_on(replay(&file, &placeholders, url.as_deref(), &command))
        }
        Command::Review { paths } => {
            let found = pending_under(&paths)?;
            if found.is_empty() {
                return nothing_pending(&paths);
            }
            let (stdin, mut stdout) = (std::io::stdin(), std::io::stdout());
            let reviewed = review::review(&found, &mut stdin.lock(), &mut stdout)?;
            println!(
                "{} accepted, {} rejected, {} skipped",
                reviewed.accepted.len(),
                reviewed.rejected.len(),
                reviewed.skipped.len()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Accept { paths } => {
            let found = pending_under(&paths)?;
            for path in &found {
                let accepted = review::accept(path)?;
                println!("accepted {}", accepted.file.display());
                for page in accepted.pages {
                    println!("  {} brought up to date", page.display());
                }
            }
            if found.is_empty() { nothing_pending(&paths) } else { Ok(ExitCode::SUCCESS) }
        }
        Command::Reject { paths } => {
            let found = pending_under(&paths)?;
            for path in &found {
                review::reject(path)?;
                println!("rejected {}", path.display());
            }
            if found.is_empty() { nothing_pending(&paths) } else { Ok(ExitCode::SUCCESS) }
        }
    }
}

fn nothing_pending(paths: &[PathBuf]) -> Result<ExitCode, String> {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    println!("nothing pending in {}", if shown.is_empty() { ".".to_owned() } else { shown.join(", ") });
    Ok(ExitCode::SUCCESS)
}

/// The pending files `paths` name (the current folder's when none is given).
fn pending_under(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let here = [PathBuf::from(".")];
    let paths = if paths.is_empty() { &here[..] } else { paths };
    let mut found = Vec::new();
    for path in paths {
        if pending::checked_of(path).is_some() || path.is_dir() {
            if !path.exists() {
                return Err(format!("{}: no such file", path.display()));
            }
            found.extend(pending::find(path));
        } else {
            let pending = pending::pending_of(path);
            if !pending.is_file() {
                return Err(format!("{}: nothing pending for it (no {})", path.display(), pending.display()));
            }
            found.push(pending);
        }
    }
    found.dedup();
    Ok(found)
}

/// The placeholders of the session's folder (its `golden.json`), with the given literals.
fn placeholders(session: &Path, literals: &[String]) -> Result<Placeholders, String> {
    let mut placeholders = Config::load(pending::folder_of(session))?.placeholders()?;
    for literal in literals {
        let (name, value) =
            literal.split_once('=').ok_or_else(|| format!("--literal {literal}: expected NAME=VALUE"))?;
        placeholders = placeholders.literal(name, value);
    }
    Ok(placeholders)
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().map_err(|e| e.to_string())
}

async fn record(
    out: &Path,
    placeholders: Placeholders,
    proxy: Option<(String, String)>,
    command: &[String],
) -> Result<ExitCode, String> {
    match (proxy, command.split_first()) {
        (Some((listen, upstream)), None) => {
            let recorder = Recorder::create(out, placeholders, "HTTP")?;
            let listener = tokio::net::TcpListener::bind(&listen).await.map_err(|e| format!("{listen}: {e}"))?;
            let addr = listener.local_addr().map_err(|e| e.to_string())?;
            let path = upstream.strip_prefix("http://").and_then(|r| r.find('/').map(|i| &r[i..])).unwrap_or("/");
            // The line tooltable's `serve` prints, so what starts a server can start this.
            eprintln!("listening on http://{addr}{path} (recording {upstream} into {})", out.display());
            record::http::proxy(listener, &upstream, recorder, stopped()).await?;
            Ok(ExitCode::SUCCESS)
        }
        (None, Some((program, args))) => {
            if std::io::stdin().is_terminal() {
                eprintln!(
                    "golden record: relaying this terminal to {program}; a host starts this command in the server's place"
                );
            }
            let recorder = Recorder::create(out, placeholders, "stdio")?;
            let stdin = tokio::io::BufReader::new(tokio::io::stdin());
            let status = record::stdio::relay(program, args, stdin, tokio::io::stdout(), &recorder).await?;
            Ok(ExitCode::from(status.code().map_or(1, |c| u8::try_from(c).unwrap_or(1))))
        }
        _ => Err("record needs `-- SERVER ARGS...` (stdio) or `--listen ADDR --upstream URL` (HTTP)".to_owned()),
    }
}

/// Until the process is asked to stop (Ctrl-C, or SIGTERM on Unix).
async fn stopped() {
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(term) => term,
            Err(_) => return std::future::pending().await,
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

async fn replay(
    path: &Path,
    placeholders: &Placeholders,
    url: Option<&str>,
    command: &[String],
) -> Result<ExitCode, String> {
    let file = SessionFile::load(path)?;
    if file.steps().is_empty() {
        return Err(format!("{}: the session sends no message", path.display()));
    }
    let mut client = match (url, command.split_first()) {
        (Some(url), None) => Client::Http(HttpClient::new(url).map_err(|e| e.to_string())?),
        (None, Some((program, args))) => {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            Client::Stdio(StdioClient::spawn(program, &args).map_err(|e| format!("{program}: {e}"))?)
        }
        _ => return Err("replay needs `-- SERVER ARGS...` (stdio) or `--url URL` (HTTP)".to_owned()),
    };
    let verdict = Replayer::new(&file, placeholders).run(&mut client).await.map_err(|e| e.to_string())?;
    let _ = client.close().await;
    if verdict.matched() {
        pending::clear(path);
        println!("{}: every answer matches", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let written = pending::write(path, &verdict.observed_session(&file))?;
    match verdict.unrecorded() {
        true => println!("{}: no answer is recorded yet", path.display()),
        false => print!("{}", verdict.differences(path)),
    }
    println!("What came back is in {}: `golden accept {}` takes it.", written.display(), written.display());
    Ok(ExitCode::from(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server_of(args: &[&str]) -> Vec<String> {
        match Cli::try_parse_from(args).unwrap_or_else(|e| panic!("{args:?}: {e}")).command {
            Command::Record { command, .. } | Command::Replay { command, .. } => command,
            _ => panic!("{args:?}: not record or replay"),
        }
    }

    /// A host that drops the `--` (the Inspector's CLI does) still launches the right server,
    /// its own flags included.
    #[test]
    fn the_server_command_comes_after_a_double_dash_or_without_one() {
        let server = ["srv", "mcp", "--flag", "--", "x"];
        for (with, without) in [
            (vec!["golden", "record", "--out", "f.session", "--"], vec!["golden", "record", "--out", "f.session"]),
            (vec!["golden", "replay", "f.session", "--"], vec!["golden", "replay", "f.session"]),
        ] {
            assert_eq!(server_of(&[with.as_slice(), &server].concat()), server);
            assert_eq!(server_of(&[without.as_slice(), &server].concat()), server);
        }
    }
}
