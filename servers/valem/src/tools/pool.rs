//! The evaluation pool: CPU-bound work (cycles, expression evaluation, reads that compute lazy
//! derivations) runs on the runtime's blocking threads, at most `threads` at once, so that the
//! I/O threads and the stdio reader stay free to answer everything else. The caller awaits its
//! turn and the result; a call dropped meanwhile (its client cancelled) stops its work at the
//! next evaluation, and the work is undone.

use std::sync::Arc;

use tokio::sync::Semaphore;
use tooltable::Cx;

use super::errors::ModelError;
use crate::engine::budget::Budget;
use crate::engine::jsonata::Interrupt;

pub struct Pool {
    permits: Arc<Semaphore>,
}

/// Interrupts the work when dropped before it is disarmed: the awaiting call went away.
struct Abandon(Option<Interrupt>);

impl Drop for Abandon {
    fn drop(&mut self) {
        if let Some(interrupt) = self.0.take() {
            interrupt.interrupt();
        }
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
        let cx = cx.clone();
        let budget = budget.with_cancel(Arc::new(move || cx.is_cancelled()));
        let mut abandon = Abandon(Some(budget.interrupt.clone()));
        let done = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work(&budget)
        })
        .await;
        abandon.0 = None;
        done.map_err(|e| ModelError::Internal(format!("the evaluation failed: {e}")))
    }
}
