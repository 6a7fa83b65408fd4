//! `gateway`: several MCP servers served as one. Each `--mount NAME=COMMAND ARGS...` (a server
//! run over stdio, the command split as a shell splits it) or `--mount NAME=http://HOST:PORT/mcp`
//! (a server reached over Streamable HTTP) adds that server's tools as `NAME_TOOL`, followed as
//! they change, every call forwarded; `gateway mcp` and `gateway serve` serve them all, over
//! stdio or HTTP, like any server of the standard command line.

use std::process::ExitCode;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use tooltable::Server;
use tooltable::context::Era;
use tooltable_transports::cli::Hooks;
use tooltable_transports::client::Target;
use tooltable_transports::proxy::{self, Proxy, Status};

/// The gateway's own options, beside the standard commands.
#[derive(Args, Debug, Clone)]
struct Gateway {
    /// A server to serve: `NAME=COMMAND ARGS...` runs it over stdio, `NAME=http://HOST:PORT/PATH`
    /// reaches it over Streamable HTTP; its tools are named `NAME_TOOL` (repeatable).
    #[arg(long = "mount", value_name = "NAME=SERVER", value_parser = mount)]
    mounts: Vec<Mount>,
    /// The era the mounted servers are spoken to in: the one each speaks (2026-07-28 when it can),
    /// or the one named.
    #[arg(long, value_enum, default_value_t = UpstreamEra::Auto)]
    upstream_era: UpstreamEra,
    /// Seconds a forwarded call may wait for its server.
    #[arg(long, default_value_t = proxy::Options::default().call_timeout.as_secs())]
    call_timeout_secs: u64,
    /// Seconds to wait for the mounted servers before serving (one not there by then is served
    /// once it is).
    #[arg(long, default_value_t = 10)]
    startup_wait_secs: u64,
}

#[derive(Debug, Clone)]
struct Mount {
    name: String,
    target: Target,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum UpstreamEra {
    Auto,
    Handshake,
    Stateless,
}

/// `NAME=http://...` or `NAME=COMMAND ARGS...`.
fn mount(value: &str) -> Result<Mount, String> {
    let (name, server) = value.split_once('=').ok_or("expected NAME=COMMAND ARGS... or NAME=http://HOST:PORT/PATH")?;
    if name.is_empty() {
        return Err("the mount has no name before `=`".into());
    }
    let target = if server.starts_with("http://") || server.starts_with("https://") {
        Target::url(server)
    } else {
        let words =
            shlex::split(server).ok_or_else(|| format!("{server:?} has an unclosed quote or a dangling `\\`"))?;
        let (program, args) = words.split_first().ok_or_else(|| format!("the mount {name} names no command"))?;
        Target::command(program, args)
    };
    Ok(Mount { name: name.to_owned(), target })
}

/// The gateway's state: what to mount, and the proxies once they run.
struct Mounted {
    mounts: Vec<Mount>,
    options: proxy::Options,
    startup_wait: Duration,
    proxies: OnceLock<Vec<Proxy>>,
}

fn build(args: Gateway) -> Result<Server<Mounted>, Box<dyn std::error::Error>> {
    for (i, m) in args.mounts.iter().enumerate() {
        if args.mounts[..i].iter().any(|other| other.name == m.name) {
            return Err(format!("two mounts are named {:?}: their tools would be one set of names", m.name).into());
        }
    }
    let mut options = proxy::Options::default().call_timeout(Duration::from_secs(args.call_timeout_secs.max(1)));
    options.client.era = match args.upstream_era {
        UpstreamEra::Auto => None,
        UpstreamEra::Handshake => Some(Era::Handshake),
        UpstreamEra::Stateless => Some(Era::Stateless),
    };
    let mounted = Mounted {
        mounts: args.mounts,
        options,
        startup_wait: Duration::from_secs(args.startup_wait_secs),
        proxies: OnceLock::new(),
    };
    let server = Server::builder(mounted)
        .info(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions("The tools of several MCP servers; each is named after the server it comes from: NAME_TOOL.")
        .build()?;
    Ok(server)
}

/// Starts a proxy per mount and waits, within the startup wait, for them to connect.
fn start(server: &Server<Mounted>) -> Result<(), Box<dyn std::error::Error>> {
    let state = server.state();
    let proxies = state
        .mounts
        .iter()
        .map(|m| Proxy::start(server, &m.name, m.target.clone(), state.options.clone()))
        .collect::<Result<Vec<_>, _>>()?;
    let until = Instant::now() + state.startup_wait;
    for proxy in &proxies {
        // A server that is not there yet is served once it is; the proxy has said why.
        if let Status::Connecting = proxy.wait_ready(until.saturating_duration_since(Instant::now())) {
            tracing::warn!("{} is not connected yet; its tools are served once it is", proxy.name());
        }
    }
    let _ = state.proxies.set(proxies);
    Ok(())
}

fn main() -> ExitCode {
    tooltable_transports::cli::run(
        tooltable_transports::package!(),
        |options, _| build(options),
        Hooks::default().start(start),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mount_is_a_url_or_a_command_split_as_a_shell_splits_it() {
        let m = mount("ent=http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!((m.name.as_str(), m.target), ("ent", Target::url("http://127.0.0.1:8080/mcp")));
        let m = mount(r#"conf=conformance-server --root "/a b" mcp"#).unwrap();
        assert_eq!(m.target, Target::command("conformance-server", ["--root", "/a b", "mcp"]));
        assert!(mount("conf").is_err());
        assert!(mount("=x").is_err());
        assert!(mount("conf=").is_err());
        assert!(mount("conf=server 'unclosed").is_err());
    }
}
