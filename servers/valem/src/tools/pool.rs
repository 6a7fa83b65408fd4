//! The evaluation pool: CPU-bound work (cycles, expression evaluation, reads that compute lazy
//! derivations) runs on the runtime's blocking threads, at most `threads` at once, so that the
//! I/O threads and the stdio reader stay free to answer everything else. The caller awaits its
//! turn and the result; a call dropped meanwhile (its client cancelled) stops its work at the
//! next evaluation, and the work is undone.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Semaphore;
use tooltable::Cx;

use super::errors::ModelError;
use crate::engine::budget::Budget;

pub struct Pool {
    permits: Arc<Semaphore>,
}

/// Sets its flag when dropped: the awaiting call went away.
struct Abandon(Arc<AtomicBool>);

impl Drop for Abandon {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

impl Pool {
    pub fn new(threads: usize) -> Pool {
        Pool { permits: Arc::new(Semaphore::new(threads.max(1))) }
    }

    /// Runs `work` on a pool thread within `budget`, cancelled when the client of `cx` cancels
    /// or the call is dropped.
    pub async fn run<S, T>(
        &self,
        cx: &Cx<S>,
        budget: &Budget,
        work: impl FnOnce(&Budget) -> T + Send + 'static,
    ) -> Result<T, ModelError>
    where
        S: Send + Sync + 'static,
        T: Send + 'static,
    {
        let permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .map_err(|_| ModelError::Internal("the evaluation pool is closed".into()))?;
        let abandoned = Arc::new(AtomicBool::new(false));
        let _abandon = Abandon(Arc::clone(&abandoned));
        let cx = cx.clone();
        let budget = budget.with_cancel(Arc::new(move || abandoned.load(Ordering::Acquire) || cx.is_cancelled()));
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work(&budget)
        })
        .await
        .map_err(|e| ModelError::Internal(format!("the evaluation failed: {e}")))
    }
}
