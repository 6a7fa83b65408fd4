//! Browser mode (`valem mcp --url URL --browser`): the agent's side of the sandbox. The server
//! lists `pair_browser` besides the 25 tools, and its model calls go to the `valem serve
//! --sandbox` at URL under the paired session: with its token, in its namespace (see
//! `namespacing.rs`). Everything a paired agent holds is in one [`Link`].

mod namespacing;
mod pair_browser;
mod pairing;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::watch;
use tooltable::tool::DynamicTool;
use tooltable_transports::forward::{Client, ForwardError, Hook, Options};

use crate::tools::registry::Models;
use pairing::Pending;

pub use namespacing::NOT_PAIRED;

/// The wait of one `pair_browser` call by default: the original's budget.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(60);

/// The agent's pairing with the sandbox it forwards to: none yet, one waiting for the
/// developer, or the session it gave.
pub struct Link {
    client: Client,
    /// The longest wait of one `pair_browser` call.
    wait: Duration,
    state: Mutex<State>,
    /// Told when the session starts: subscriptions then follow the namespaced state.
    changed: watch::Sender<()>,
    /// One mint at a time: two calls at once resume one pairing.
    minting: tokio::sync::Mutex<()>,
}

enum State {
    Unpaired,
    Pending(Pending),
    Paired { session_token: String, namespace_id: String },
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &*self.state() {
            State::Unpaired => "unpaired",
            State::Pending(_) => "pending",
            State::Paired { .. } => "paired",
        };
        f.debug_struct("Link").field("url", &self.client.url("")).field("state", &state).finish_non_exhaustive()
    }
}

impl Link {
    /// The link to the sandbox at `url`, reached as `options` say; each `pair_browser` call
    /// waits at most `wait`.
    pub fn new(url: &str, options: &Options, wait: Duration) -> Result<Arc<Link>, ForwardError> {
        Ok(Arc::new(Link {
            client: Client::new(url, options)?,
            wait,
            state: Mutex::new(State::Unpaired),
            changed: watch::Sender::new(()),
            minting: tokio::sync::Mutex::new(()),
        }))
    }

    /// The hook the forwarded calls go through.
    pub fn hook(self: &Arc<Self>) -> Arc<dyn Hook> {
        Arc::new(namespacing::Namespacing(Arc::clone(self)))
    }

    /// The `pair_browser` tool.
    pub fn tool(self: &Arc<Self>) -> DynamicTool<Models> {
        pair_browser::tool(Arc::clone(self))
    }

    /// The session's namespace and token, once paired.
    fn session(&self) -> Option<(String, String)> {
        match &*self.state() {
            State::Paired { session_token, namespace_id } => Some((namespace_id.clone(), session_token.clone())),
            _ => None,
        }
    }

    fn pair(&self, session_token: String, namespace_id: String) {
        *self.state() = State::Paired { session_token, namespace_id };
        self.changed.send_replace(());
    }

    fn changes(&self) -> watch::Receiver<()> {
        self.changed.subscribe()
    }

    /// The waiting pairing, or a new one when there is none.
    async fn pending_or_mint(&self) -> Result<Pending, String> {
        let _one = self.minting.lock().await;
        if let State::Pending(pending) = &*self.state() {
            return Ok(pending.clone());
        }
        let pending = pairing::mint(&self.client).await?;
        *self.state() = State::Pending(pending.clone());
        Ok(pending)
    }

    /// Keeps what a wait learned of the pairing (its last poll, its interval), unless it ended.
    fn keep_pending(&self, pending: &Pending) {
        let mut state = self.state();
        if matches!(&*state, State::Pending(kept) if kept.pair_code == pending.pair_code) {
            *state = State::Pending(pending.clone());
        }
    }

    fn forget_pending(&self) {
        let mut state = self.state();
        if matches!(&*state, State::Pending(_)) {
            *state = State::Unpaired;
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link to a sandbox that is never reached.
    pub fn link() -> Arc<Link> {
        Link::new("http://127.0.0.1:9", &Options::default(), DEFAULT_WAIT).unwrap()
    }

    #[test]
    fn the_token_is_not_printed() {
        let link = link();
        link.pair("s3cret-token".into(), "s1".into());
        let printed = format!("{link:?}");
        assert!(printed.contains("paired") && !printed.contains("s3cret"), "{printed}");
    }
}
