//! Stopping a computation's evaluations from another thread (a cancelled call): the engine's
//! cancel token is per evaluation, so that the memory meter can cancel one evaluation alone;
//! an interrupt cancels the one running now and refuses every later one.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use jsonata_core::evaluator::CancelToken;

/// Stops the evaluations of one computation from another thread: the one running now at its
/// next step, and every later one at once.
#[derive(Clone, Default)]
pub struct Interrupt(Arc<Mutex<Interruption>>);

#[derive(Default)]
struct Interruption {
    interrupted: bool,
    /// The token of the evaluation running now.
    current: Option<CancelToken>,
}

impl Interrupt {
    pub fn interrupt(&self) {
        let mut state = self.lock();
        state.interrupted = true;
        if let Some(token) = &state.current {
            token.cancel();
        }
    }

    pub fn is_interrupted(&self) -> bool {
        self.lock().interrupted
    }

    /// A token for the next evaluation, or `None` once interrupted.
    pub(super) fn next_token(&self) -> Option<CancelToken> {
        let mut state = self.lock();
        if state.interrupted {
            return None;
        }
        let token = CancelToken::new();
        state.current = Some(token.clone());
        Some(token)
    }

    fn lock(&self) -> MutexGuard<'_, Interruption> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interrupt").field("interrupted", &self.is_interrupted()).finish()
    }
}
