//! The sandbox's bounds (`valem serve --sandbox`), each with its flag and default: how long a
//! pairing waits and how fast it may be polled, how many wait at once, how many wrong user
//! codes one pairing survives, how long an idle session lives and how many live at once, and
//! what the pages' event streams and request bodies may take.

use std::time::Duration;

use clap::Args;

/// The sandbox's flags.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
pub struct SandboxLimits {
    /// Seconds a pairing waits for the developer's approval before it expires.
    #[arg(long, global = true, default_value_t = SandboxLimits::DEFAULT.pairing_ttl_secs, value_parser = at_least_one())]
    pub pairing_ttl_secs: u64,
    /// Seconds a client waits between two polls of a pairing (`intervalSec`); a faster poll is
    /// answered `slow_down`.
    #[arg(long, global = true, default_value_t = SandboxLimits::DEFAULT.pairing_interval_secs, value_parser = at_least_one())]
    pub pairing_interval_secs: u64,
    /// Pairings kept at once (waiting, or decided and not yet told to their client); a mint past
    /// it is answered 503.
    #[arg(long, global = true, default_value_t = SandboxLimits::DEFAULT.max_pairings)]
    pub max_pairings: usize,
    /// Wrong user codes tried while a pairing waits before it is refused (`access_denied`):
    /// bounds the chance that guessing finds a waiting code.
    #[arg(long, global = true, default_value_t = SandboxLimits::DEFAULT.max_wrong_codes)]
    pub max_wrong_codes: u32,
    /// Seconds a sandbox session lives unused (neither its token nor its browser's cookie
    /// presented); then its models are deleted.
    #[arg(long, global = true, default_value_t = SandboxLimits::DEFAULT.sandbox_session_idle_secs, value_parser = at_least_one())]
    pub sandbox_session_idle_secs: u64,
    /// Sandbox sessions at once; an approval past it is answered 503.
    #[arg(long, global = true, default_value_t = SandboxLimits::DEFAULT.max_sandbox_sessions)]
    pub max_sandbox_sessions: usize,
    /// Live-update streams of model pages one session may hold open; one more is answered 429.
    #[arg(long, global = true, default_value_t = SandboxLimits::DEFAULT.max_page_streams)]
    pub max_page_streams: usize,
}

impl SandboxLimits {
    pub const DEFAULT: SandboxLimits = SandboxLimits {
        pairing_ttl_secs: 600,
        pairing_interval_secs: 5,
        max_pairings: 100,
        max_wrong_codes: 10,
        sandbox_session_idle_secs: 8 * 60 * 60,
        max_sandbox_sessions: 1_000,
        max_page_streams: 8,
    };

    pub fn pairing_ttl(&self) -> Duration {
        Duration::from_secs(self.pairing_ttl_secs)
    }

    pub fn pairing_interval(&self) -> Duration {
        Duration::from_secs(self.pairing_interval_secs)
    }

    pub fn session_idle(&self) -> Duration {
        Duration::from_secs(self.sandbox_session_idle_secs)
    }
}

impl Default for SandboxLimits {
    fn default() -> Self {
        SandboxLimits::DEFAULT
    }
}

/// The largest request body a sandbox route reads (an approval, a mutation from a page).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// How long a sandbox route waits for its request's body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// Seconds without a change after which a page's event stream sends a keepalive comment (and
/// checks that its session still lives).
pub const STREAM_KEEPALIVE: Duration = Duration::from_secs(15);

fn at_least_one() -> clap::builder::RangedU64ValueParser {
    clap::builder::RangedU64ValueParser::new().range(1..)
}
