//! What the command line reads: the standard commands and their flags beside a server's own
//! options, the secrets flags may leave to the environment, and the environment's shared state key.

use clap::{Args, Parser, Subcommand};
use tooltable::Server;

use super::Package;
use crate::forward;
use crate::http::{ApiKey, HttpOptions, OAuth};
use crate::stdio::StdioOptions;

/// A server's own command-line options, flattened beside the standard commands.
#[derive(Args, Debug, Clone, Default)]
pub(super) struct NoOptions {}

#[derive(Parser, Debug)]
pub(super) struct Cli<A: Args> {
    #[command(flatten)]
    pub(super) app: A,
    #[command(subcommand)]
    pub(super) command: Command,
}

#[derive(Subcommand, Debug)]
pub(super) enum Command {
    /// Serve MCP over stdin and stdout (newline-delimited JSON-RPC).
    Mcp {
        /// The longest message line accepted, in bytes.
        #[arg(long, default_value_t = StdioOptions::default().max_line_bytes)]
        max_line_bytes: usize,
        /// Bytes of answers the client has not read yet past which stdin is no longer read.
        #[arg(long, default_value_t = StdioOptions::default().max_unread_output)]
        max_unread_output: usize,
        #[command(flatten)]
        remote: RemoteArgs,
    },
    /// Call one tool in process and print its result as JSON (exit 1 on a tool error).
    Call {
        /// The tool's name.
        tool: String,
        /// The arguments, a JSON object.
        #[arg(default_value = "{}")]
        arguments: String,
    },
    /// Print every tool's descriptor as JSON.
    Tools,
    /// Print the OpenAPI 3.1 document of the REST routes.
    Openapi,
    /// Serve Streamable HTTP at /mcp, with the REST routes and /openapi.json, on one port.
    #[command(after_help = SERVE_ENVIRONMENT)]
    Serve(Box<ServeArgs>),
}

/// Remote mode of `mcp`: the same tools, the server's state kept by a `serve` instance elsewhere.
#[derive(Args, Debug)]
pub(super) struct RemoteArgs {
    /// Forward every tool with a REST route (but the server's local ones) to the `serve`
    /// instance at this base URL (`http://host:port`); also read from `<SERVER>_URL`.
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// The API key the remote instance requires, sent as a bearer token; also read from
    /// `<SERVER>_API_KEY` (which keeps it out of the process list).
    #[arg(long, value_name = "KEY")]
    api_key: Option<String>,
    /// Seconds one forwarded call may take, connecting included, before it fails.
    #[arg(long, default_value_t = forward::Options::default().timeout.as_secs(), value_parser = seconds())]
    forward_timeout_secs: u64,
}

#[derive(Args, Debug)]
pub(super) struct ServeArgs {
    /// Require `Authorization: Bearer KEY` on every route but `GET /health`; also read from
    /// `<SERVER>_API_KEY` (which keeps it out of the process list).
    #[arg(long, value_name = "KEY")]
    api_key: Option<String>,
    /// Accept only OAuth 2.1 bearer tokens this authorization server (its issuer identifier)
    /// issued for this server, on every route but GET /health and the protected resource
    /// metadata (/.well-known/oauth-protected-resource/mcp); instead of --api-key.
    #[arg(long, value_name = "ISSUER", conflicts_with = "api_key")]
    oauth_issuer: Option<String>,
    /// Another audience a token may name instead of this server's resource URL (repeatable).
    #[arg(long = "oauth-audience", value_name = "AUD", requires = "oauth_issuer")]
    oauth_audiences: Vec<String>,
    /// The server's public base URL, as clients reach it: the protected resource is URL/mcp.
    /// By default the address it listens on.
    #[arg(long, value_name = "URL", requires = "oauth_issuer")]
    public_url: Option<String>,
    /// Accept opaque tokens too, checked at this introspection endpoint of the authorization
    /// server (RFC 7662) as the client --oauth-client-id.
    #[arg(long, value_name = "URL", requires_all = ["oauth_issuer", "oauth_client_id"])]
    oauth_introspection: Option<String>,
    /// The client this server introspects tokens as.
    #[arg(long, value_name = "ID", requires = "oauth_introspection")]
    oauth_client_id: Option<String>,
    /// That client's secret; also read from `<SERVER>_OAUTH_CLIENT_SECRET` (which keeps it out of
    /// the process list).
    #[arg(long, value_name = "SECRET", requires = "oauth_introspection")]
    oauth_client_secret: Option<String>,
    /// Requests one caller (its principal, else its address) may make a second, as N/s, in
    /// bursts of as many: REST requests and /mcp POSTs past it are answered 429 with Retry-After.
    #[arg(long, value_name = "N/s")]
    rate_limit: Option<crate::http::RateLimit>,
    /// The address to listen on (loopback by default; port 0 picks a free one).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: std::net::SocketAddr,
    /// An origin allowed besides localhost ones (repeatable; `*` allows any).
    #[arg(long = "allow-origin")]
    allow_origins: Vec<String>,
    /// A Host name allowed besides localhost ones (repeatable; `*` allows any).
    #[arg(long = "allow-host")]
    allow_hosts: Vec<String>,
    /// Seconds of inactivity after which a session expires.
    #[arg(long, default_value_t = HttpOptions::default().session_idle.as_secs())]
    session_idle_secs: u64,
    /// Sessions on the server; at the cap the least recently used idle one is ended.
    #[arg(long, default_value_t = HttpOptions::default().max_sessions)]
    max_sessions: usize,
    /// Sessions of one client address; at the cap its least recently used idle one is ended.
    #[arg(long, default_value_t = HttpOptions::default().max_sessions_per_client)]
    max_sessions_per_client: usize,
    /// The largest request body accepted, in bytes.
    #[arg(long, default_value_t = HttpOptions::default().max_body_bytes)]
    max_body_bytes: usize,
    /// Bytes of events one session keeps for clients that reconnect with Last-Event-ID.
    #[arg(long, default_value_t = HttpOptions::default().log_bytes_per_session)]
    log_bytes_per_session: usize,
    /// Bytes of such events all sessions together keep.
    #[arg(long, default_value_t = HttpOptions::default().log_bytes_per_server)]
    log_bytes_per_server: usize,
    /// Seconds without an event after which an event stream sends a keepalive comment.
    #[arg(long, default_value_t = HttpOptions::default().sse_keepalive.as_secs(), value_parser = seconds())]
    sse_keepalive_secs: u64,
    /// Bytes of events an event stream's client may leave unread; past them the stream is closed
    /// and the client resumes it with Last-Event-ID.
    #[arg(long, default_value_t = HttpOptions::default().max_unread_event_bytes)]
    max_unread_event_bytes: usize,
    /// Bytes of large request bodies parsed at once (one more waits, then gets a 503).
    #[arg(long, default_value_t = HttpOptions::default().max_parsing_bytes)]
    max_parsing_bytes: usize,
    /// The largest REST response body, in bytes (a larger result is a 413 error body).
    #[arg(long, default_value_t = HttpOptions::default().max_response_bytes)]
    max_response_bytes: usize,
    /// Connections open at once; one more is answered 503 and closed.
    #[arg(long, default_value_t = HttpOptions::default().max_connections)]
    max_connections: usize,
    /// Seconds a connection may take to send a request's headers, counted from when it opens or
    /// its previous response ends (so also how long a kept-alive connection may sit idle).
    #[arg(long, default_value_t = HttpOptions::default().header_timeout.as_secs(), value_parser = seconds())]
    header_timeout_secs: u64,
    /// Seconds a request body may take to arrive once its headers have (408 beyond).
    #[arg(long, default_value_t = HttpOptions::default().body_timeout.as_secs(), value_parser = seconds())]
    body_timeout_secs: u64,
    /// Seconds a response may wait for a client that reads none of it before the connection ends.
    #[arg(long, default_value_t = HttpOptions::default().stall_timeout.as_secs(), value_parser = seconds())]
    stall_timeout_secs: u64,
}

impl ServeArgs {
    /// The authorization server `--oauth-issuer` names, with the public URL and audiences.
    pub(super) fn oauth(&self, package: Package) -> Result<Option<OAuth>, String> {
        let Some(issuer) = &self.oauth_issuer else { return Ok(None) };
        if secret(self.api_key.clone(), package, "API_KEY").is_some() {
            return Err("--oauth-issuer replaces the API key (both travel as the bearer token): unset it".into());
        }
        let mut oauth = OAuth::new(issuer).map_err(|e| e.to_string())?;
        if let Some(url) = &self.public_url {
            oauth = oauth.with_public_url(url).map_err(|e| e.to_string())?;
        }
        if let (Some(endpoint), Some(client_id)) = (&self.oauth_introspection, &self.oauth_client_id) {
            let Some(secret) = secret(self.oauth_client_secret.clone(), package, "OAUTH_CLIENT_SECRET") else {
                return Err("--oauth-introspection needs the client's secret: --oauth-client-secret".into());
            };
            oauth = oauth.with_introspection(endpoint, client_id, secret).map_err(|e| e.to_string())?;
        }
        Ok(Some(self.oauth_audiences.iter().fold(oauth, |oauth, audience| oauth.with_audience(audience))))
    }

    pub(super) fn options(self, package: Package) -> Result<HttpOptions, String> {
        let secs = std::time::Duration::from_secs;
        let api_key = secret(self.api_key, package, "API_KEY")
            .map(|key| ApiKey::new(&key).map_err(|e| e.to_string()))
            .transpose()?;
        Ok(HttpOptions {
            listen: self.listen,
            allowed_origins: self.allow_origins,
            allowed_hosts: self.allow_hosts,
            session_idle: secs(self.session_idle_secs),
            max_sessions: self.max_sessions,
            max_sessions_per_client: self.max_sessions_per_client,
            max_body_bytes: self.max_body_bytes,
            log_bytes_per_session: self.log_bytes_per_session,
            log_bytes_per_server: self.log_bytes_per_server,
            sse_keepalive: secs(self.sse_keepalive_secs),
            max_unread_event_bytes: self.max_unread_event_bytes,
            max_parsing_bytes: self.max_parsing_bytes,
            max_response_bytes: self.max_response_bytes,
            max_connections: self.max_connections,
            header_timeout: secs(self.header_timeout_secs),
            body_timeout: secs(self.body_timeout_secs),
            stall_timeout: secs(self.stall_timeout_secs),
            api_key,
            rate_limit: self.rate_limit,
            ..HttpOptions::default()
        })
    }
}

/// `mcp --url URL`: the instance the server's state lives in and how it is reached, as the
/// server's build sees it ([`run`](super::run)), which may add a [`forward::Hook`] to the
/// options before the tools are forwarded with them.
#[derive(Debug)]
pub struct RemoteTarget {
    /// The base URL of the `serve` instance (`mcp --url`).
    pub url: String,
    /// How its tools are forwarded there: the API key, timeouts, limits, and any hook.
    pub options: forward::Options,
}

impl RemoteArgs {
    /// The target when a URL is given; an error says what is wrong, never quoting the key.
    pub(super) fn target(&self, package: Package) -> Result<Option<RemoteTarget>, String> {
        let key = secret(self.api_key.clone(), package, "API_KEY");
        let Some(url) = secret(self.url.clone(), package, "URL") else {
            return match key {
                Some(_) => Err("--api-key is for a remote instance: give its --url too".into()),
                None => Ok(None),
            };
        };
        let mut options =
            forward::Options::default().timeout(std::time::Duration::from_secs(self.forward_timeout_secs));
        if let Some(key) = key {
            ApiKey::new(&key).map_err(|e| e.to_string())?;
            options = options.bearer_token(key);
        }
        Ok(Some(RemoteTarget { url, options }))
    }
}

/// The flag's value, or else the environment variable `<SERVER>_<SUFFIX>` (the package name in
/// upper case, `-` as `_`); an empty value is none.
fn secret(flag: Option<String>, package: Package, suffix: &str) -> Option<String> {
    let name = format!("{}_{suffix}", package.name.to_ascii_uppercase().replace('-', "_"));
    flag.or_else(|| std::env::var(name).ok()).filter(|v| !v.is_empty())
}

/// A number of seconds, at least 1: a zero timeout would refuse everything.
fn seconds() -> clap::builder::RangedU64ValueParser {
    clap::builder::RangedU64ValueParser::new().range(1..)
}

/// Parses `args` with the server's name, version and description; its own options are global, so
/// `server mcp --root DIR` and `server --root DIR mcp` both work.
pub(super) fn command<A: Args>(
    package: Package,
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Result<clap::ArgMatches, clap::Error> {
    let mut args = args.into_iter().peekable();
    let bin = args.peek().and_then(|a| a.to_str()).and_then(|a| a.rsplit('/').next()).map(str::to_owned);
    let mut command = <Cli<A> as clap::CommandFactory>::command()
        .mut_args(|arg| arg.global(true))
        .name(bin.unwrap_or_else(|| package.name.to_owned()))
        .version(package.version);
    if !package.description.is_empty() {
        command = command.about(package.description);
    }
    command.try_get_matches_from(args)
}

/// The environment variable whose secret signs multi-round `requestState`s: instances of one
/// server behind a load balancer are given the same one, so a retry may reach any of them. A
/// variable, not a flag, so the secret never shows in the process list.
const STATE_KEY_ENV: &str = "TOOLTABLE_STATE_KEY";

/// What `serve --help` says of the environment: the scale-out secret, which no flag names.
const SERVE_ENVIRONMENT: &str = "Environment:
  TOOLTABLE_STATE_KEY  The secret (16 bytes or more) that signs the state of multi-round requests
                       (revision 2026-07-28). Give every instance behind one load balancer the
                       same one, so that a retry may reach any of them; without it, each process
                       signs with a random key of its own.";

pub(super) fn shared_state_key<S: Send + Sync + 'static>(server: &mut Server<S>) -> Result<(), String> {
    let Some(secret) = std::env::var_os(STATE_KEY_ENV) else { return Ok(()) };
    let key = tooltable::server::StateKey::from_secret(secret.as_encoded_bytes())
        .ok_or_else(|| format!("{STATE_KEY_ENV} must hold a secret of at least 16 bytes"))?;
    if server.set_state_key(key) { Ok(()) } else { Err("the server is already shared; cannot change its key".into()) }
}

#[cfg(test)]
mod tests {
    use clap::FromArgMatches as _;

    use super::*;

    const PACKAGE: Package = Package { name: "some-server", version: "9.8.7", description: "Serves some things" };

    fn output(args: &[&str]) -> String {
        let e = command::<NoOptions>(PACKAGE, args.iter().map(Into::into)).expect_err("help and version exit early");
        e.render().to_string()
    }

    #[test]
    fn version_and_help_name_the_server() {
        assert_eq!(output(&["/usr/bin/some-server", "--version"]).trim(), "some-server 9.8.7");
        let help = output(&["some-server", "--help"]);
        assert!(help.starts_with("Serves some things"), "{help}");
        assert!(!help.contains("tooltable"), "{help}");
    }

    #[test]
    fn serve_help_names_the_scale_out_secret() {
        let help = output(&["some-server", "serve", "--help"]);
        assert!(help.contains(&format!("{STATE_KEY_ENV}  The secret")), "{help}");
        assert!(!output(&["some-server", "--help"]).contains(STATE_KEY_ENV), "only `serve` scales out");
    }

    #[test]
    fn a_zero_timeout_is_a_usage_error() {
        let parse =
            |secs: &str| command::<NoOptions>(PACKAGE, ["s", "serve", "--header-timeout-secs", secs].map(Into::into));
        assert_eq!(parse("0").unwrap_err().kind(), clap::error::ErrorKind::ValueValidation);
        assert!(parse("1").is_ok());
    }

    #[test]
    fn oauth_options_go_together() {
        let parse = |args: &[&str]| {
            let args = ["s", "serve"].iter().chain(args).map(Into::into);
            command::<NoOptions>(PACKAGE, args).map(|m| Cli::<NoOptions>::from_arg_matches(&m).unwrap())
        };
        assert!(parse(&["--oauth-audience", "a"]).is_err(), "an audience needs an issuer");
        assert!(parse(&["--public-url", "http://h"]).is_err(), "a public URL needs an issuer");
        assert!(parse(&["--oauth-issuer", "http://as", "--api-key", "k"]).is_err(), "one bearer token or the other");
        let cli = parse(&[
            "--oauth-issuer",
            "http://as",
            "--oauth-audience",
            "a",
            "--oauth-audience",
            "b",
            "--public-url",
            "http://h/",
        ]);
        let Ok(Cli { command: Command::Serve(args), .. }) = cli else { panic!("parsed: {cli:?}") };
        let oauth = args.oauth(PACKAGE).unwrap().unwrap();
        assert_eq!(
            oauth,
            OAuth::new("http://as").unwrap().with_public_url("http://h").unwrap().with_audience("a").with_audience("b")
        );
        let Ok(Cli { command: Command::Serve(args), .. }) = parse(&["--oauth-issuer", "ftp://as"]) else { panic!() };
        assert!(args.oauth(PACKAGE).unwrap_err().contains("ftp://as"));
        assert!(
            parse(&["--oauth-issuer", "http://as", "--oauth-introspection", "http://as/i"]).is_err(),
            "as which client?"
        );
        let introspecting =
            ["--oauth-issuer", "http://as", "--oauth-introspection", "http://as/i", "--oauth-client-id", "rs"];
        let Ok(Cli { command: Command::Serve(args), .. }) = parse(&introspecting) else { panic!() };
        assert!(args.oauth(PACKAGE).unwrap_err().contains("--oauth-client-secret"), "no secret");
        let with_secret = [&introspecting[..], &["--oauth-client-secret", "s3cret"]].concat();
        let Ok(Cli { command: Command::Serve(args), .. }) = parse(&with_secret) else { panic!() };
        let expected = OAuth::new("http://as").unwrap().with_introspection("http://as/i", "rs", "s3cret").unwrap();
        assert_eq!(args.oauth(PACKAGE).unwrap(), Some(expected));
    }

    #[test]
    fn a_rate_limit_is_requests_a_second() {
        let parse = |limit: &str| {
            let args = ["s", "serve", "--rate-limit", limit].map(Into::into);
            command::<NoOptions>(PACKAGE, args).and_then(|m| Cli::<NoOptions>::from_arg_matches(&m))
        };
        let Ok(Cli { command: Command::Serve(args), .. }) = parse("50/s") else { panic!("50/s parses") };
        assert_eq!(args.options(PACKAGE).unwrap().rate_limit.map(|limit| limit.per_second()), Some(50));
        for wrong in ["50", "0/s", "50/min", "1.5/s"] {
            assert_eq!(parse(wrong).unwrap_err().kind(), clap::error::ErrorKind::ValueValidation, "{wrong}");
        }
    }
}
