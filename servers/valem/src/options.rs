//! valem's own command-line options: the bounds that keep one process alive and responsive
//! under any load. Every default is in `docs/servers/valem.md` ("Limits and defaults").

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::engine::budget::Budget;
use crate::sandbox::SandboxLimits;
use crate::store::postgres::PostgresOptions;

/// valem's options: where the models are kept, and the bounds of the process.
#[derive(Args, Debug, Clone)]
pub struct Options {
    #[command(flatten)]
    pub limits: Limits,
    /// Keep the models, their audit trails and the blobs in DIR (SQLite, `DIR/valem.db`,
    /// created when absent) so that a restart loses nothing; without it they live in memory.
    #[arg(long, global = true, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// How long a write to the store waits for the database's lock, in milliseconds, before it
    /// fails.
    #[arg(long, global = true, default_value_t = Options::DEFAULT_BUSY_TIMEOUT_MS)]
    pub store_busy_timeout_ms: u64,
    #[command(flatten)]
    pub database: Database,
    /// Adds `tamper_audit_record`, which alters stored audit records in memory (tests only; see
    /// `audit_hook.rs`).
    #[arg(long, global = true, hide = true, conflicts_with_all = ["data", "database", "sandbox"])]
    pub audit_tamper_hook: bool,
    #[command(flatten)]
    pub pairing: Pairing,
    #[command(flatten)]
    pub sandbox: Sandboxing,
}

/// The sandbox `serve --sandbox` serves beside the models.
#[derive(Args, Debug, Clone, Default)]
pub struct Sandboxing {
    /// With `serve`: serve the sandbox at /sandbox, where an agent in browser mode (`mcp --url
    /// URL --browser`) pairs with a developer's browser, which shows the session's models as
    /// forms and edits them. Its pages and pairing routes need no API key; the session tokens
    /// they give keep each session to its own models.
    #[arg(long, global = true)]
    pub sandbox: bool,
    #[command(flatten)]
    pub limits: SandboxLimits,
}

impl Sandboxing {
    /// The sandbox's limits, when it is served.
    pub fn served(&self) -> Option<SandboxLimits> {
        self.sandbox.then(|| self.limits.clone())
    }
}

/// An agent paired with a developer's browser: browser mode of `mcp --url`.
#[derive(Args, Debug, Clone)]
pub struct Pairing {
    /// With `mcp --url URL`: pair with a developer's browser session in that server's sandbox
    /// (`pair_browser`); the models are then the session's, which the browser shows and edits.
    #[arg(long, global = true)]
    pub browser: bool,
    /// Seconds one `pair_browser` call waits for the developer's approval (at most as long as the
    /// pairing lives).
    #[arg(long, global = true, default_value_t = crate::browser::DEFAULT_WAIT.as_secs())]
    #[arg(value_parser = clap::value_parser!(u64).range(1..))]
    pub pair_wait_secs: u64,
}

impl Default for Pairing {
    fn default() -> Self {
        Pairing { browser: false, pair_wait_secs: crate::browser::DEFAULT_WAIT.as_secs() }
    }
}

impl Pairing {
    pub fn pair_wait(&self) -> Duration {
        Duration::from_secs(self.pair_wait_secs)
    }
}

/// The PostgreSQL database several instances share (`--database URL`).
#[derive(Args, Debug, Clone)]
pub struct Database {
    /// Keep the models, their audit trails and the blobs in the PostgreSQL database at URL
    /// (postgres://USER:PASSWORD@HOST:PORT/DATABASE), which several instances may serve at once;
    /// the environment variable keeps the password off the command line.
    #[arg(
        long = "database",
        id = "database",
        global = true,
        value_name = "URL",
        env = "VALEM_DATABASE_URL",
        hide_env_values = true
    )]
    #[arg(conflicts_with = "data")]
    pub url: Option<DatabaseUrl>,
    /// Connections to the database one instance keeps open at once (besides the one that hears
    /// the other instances' commits).
    #[arg(long = "database-pool", global = true, value_name = "N", default_value_t = PostgresOptions::DEFAULT.pool as u16)]
    #[arg(value_parser = clap::value_parser!(u16).range(1..))]
    pub pool: u16,
    /// The longest wait, in milliseconds, to connect to the database, for a free connection and
    /// for a model another instance is changing; a statement, and a change an instance leaves
    /// open, may take twice as long.
    #[arg(long = "database-timeout-ms", global = true, value_name = "MS", default_value_t = PostgresOptions::DEFAULT.timeout.as_millis() as u64)]
    #[arg(value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout_ms: u64,
}

/// A database URL: shown as `postgres://…` only, since it may hold a password.
#[derive(Clone)]
pub struct DatabaseUrl(pub String);

impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DatabaseUrl(…)")
    }
}

impl std::str::FromStr for DatabaseUrl {
    type Err = std::convert::Infallible;
    fn from_str(url: &str) -> Result<Self, Self::Err> {
        Ok(DatabaseUrl(url.to_owned()))
    }
}

impl Database {
    pub fn options(&self) -> PostgresOptions {
        PostgresOptions { pool: self.pool.into(), timeout: Duration::from_millis(self.timeout_ms) }
    }
}

impl Default for Database {
    fn default() -> Self {
        let defaults = PostgresOptions::DEFAULT;
        Database { url: None, pool: defaults.pool as u16, timeout_ms: defaults.timeout.as_millis() as u64 }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            limits: Limits::DEFAULT,
            data: None,
            store_busy_timeout_ms: Options::DEFAULT_BUSY_TIMEOUT_MS,
            database: Database::default(),
            audit_tamper_hook: false,
            pairing: Pairing::default(),
            sandbox: Sandboxing::default(),
        }
    }
}

impl Options {
    pub const DEFAULT_BUSY_TIMEOUT_MS: u64 = 5_000;

    pub fn store_busy_timeout(&self) -> Duration {
        Duration::from_millis(self.store_busy_timeout_ms)
    }
}

/// The bounds of one valem process.
#[derive(Args, Debug, Clone)]
pub struct Limits {
    /// The most models the process holds at once; `create_model` past it is refused.
    #[arg(long, global = true, default_value_t = Limits::DEFAULT.max_models)]
    pub max_models: usize,
    /// The largest document of one model, in bytes of compact JSON; a cycle that would store
    /// more is refused and undone.
    #[arg(long, global = true, default_value_t = Limits::DEFAULT.max_model_bytes)]
    pub max_model_bytes: usize,
    /// The bytes of documents all models together may hold; a cycle past it is refused.
    #[arg(long, global = true, default_value_t = Limits::DEFAULT.max_stored_bytes)]
    pub max_stored_bytes: usize,
    /// The memory one expression evaluation may take, in bytes; past it the evaluation fails.
    #[arg(long, global = true, default_value_t = Limits::DEFAULT.max_eval_bytes)]
    pub max_eval_bytes: usize,
    /// The longest sequence an evaluation may build (ranges, maps, filters); past it D2015.
    #[arg(long, global = true, default_value_t = Limits::DEFAULT.max_sequence)]
    pub max_sequence: usize,
    /// The wall-clock time of one whole cycle (every expression it evaluates), in milliseconds.
    #[arg(long, global = true, default_value_t = Limits::DEFAULT.cycle_timeout_ms)]
    pub cycle_timeout_ms: u64,
    /// Evaluations run at once on their own threads; 0 means one per core.
    #[arg(long, global = true, default_value_t = Limits::DEFAULT.eval_threads)]
    pub eval_threads: usize,
    /// The audit records kept per model in memory; past it the oldest go.
    #[arg(long, global = true, default_value_t = Limits::DEFAULT.max_audit_records)]
    pub max_audit_records: usize,
    /// The bytes of audit records kept per model in memory; past it the oldest go.
    #[arg(long, global = true, default_value_t = Limits::DEFAULT.max_audit_bytes)]
    pub max_audit_bytes: usize,
    /// The largest blob `upload_blob` accepts, in bytes (decoded).
    #[arg(long, global = true, default_value_t = Limits::DEFAULT.max_blob_bytes)]
    pub max_blob_bytes: usize,
    /// The bytes all blobs together may hold; an upload past it is refused.
    #[arg(long, global = true, default_value_t = Limits::DEFAULT.max_blob_store_bytes)]
    pub max_blob_store_bytes: usize,
}

impl Limits {
    pub const DEFAULT: Limits = Limits {
        max_models: 10_000,
        max_model_bytes: 8 * 1024 * 1024,
        max_stored_bytes: 256 * 1024 * 1024,
        max_eval_bytes: 64 * 1024 * 1024,
        max_sequence: 1_000_000,
        cycle_timeout_ms: 1_000,
        eval_threads: 0,
        max_audit_records: 10_000,
        max_audit_bytes: 4 * 1024 * 1024,
        max_blob_bytes: 50 * 1024 * 1024,
        max_blob_store_bytes: 256 * 1024 * 1024,
    };

    pub fn cycle_timeout(&self) -> Duration {
        Duration::from_millis(self.cycle_timeout_ms)
    }

    /// What one computation may spend, the caller never cancelling.
    pub fn budget(&self) -> Budget {
        Budget {
            eval_bytes: self.max_eval_bytes,
            sequence: self.max_sequence,
            cycle_time: self.cycle_timeout(),
            model_bytes: self.max_model_bytes,
            cancelled: std::sync::Arc::new(|| false),
            interrupt: Default::default(),
        }
    }

    /// The evaluation threads: `eval_threads`, or one per core when it is 0.
    pub fn threads(&self) -> usize {
        match self.eval_threads {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
            n => n,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::DatabaseUrl;

    #[test]
    fn a_database_url_never_prints_its_password() {
        let url: DatabaseUrl = "postgres://valem:s3cret@db:5432/valem".parse().unwrap();
        assert_eq!(format!("{url:?}"), "DatabaseUrl(…)");
    }
}
