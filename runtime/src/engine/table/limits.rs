//! A tool's own limits on its calls ([`CallLimits`](crate::tool::CallLimits)): a slot among
//! `max_concurrent`, and a time limit.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::{Semaphore, SemaphorePermit};

use super::Ended;
use crate::api::error::{Error, ErrorBody, ErrorKind};
use crate::api::layer::Outcome;

/// The slots of a tool whose calls may run `max` at once. As many more may wait for one, in
/// the order they came; one more is refused.
pub(crate) struct Slots {
    running: Semaphore,
    waiting: AtomicUsize,
    max: u32,
}

impl Slots {
    pub(crate) fn new(max: u32) -> Self {
        Slots { running: Semaphore::new(max as usize), waiting: AtomicUsize::new(0), max }
    }

    /// A slot, held until the permit drops: at once, or after waiting; else the refusal.
    pub(crate) async fn take(&self) -> Result<SemaphorePermit<'_>, Error> {
        if let Ok(permit) = self.running.try_acquire() {
            return Ok(permit);
        }
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.max as usize {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(self.refusal());
        }
        // Counted out however the wait ends, a cancelled call's included.
        let _waiting = Waiting(&self.waiting);
        self.running.acquire().await.map_err(|_| self.refusal())
    }

    fn refusal(&self) -> Error {
        Error::from(TooManyConcurrentCalls { error: "Too many concurrent calls", max_concurrent: self.max })
    }
}

/// One call waiting for a slot.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Runs `call` within `limit_ms`; past it the call is dropped and fails with the time limit.
pub(crate) async fn within(limit_ms: u64, call: impl Future<Output = Ended>) -> Ended {
    match tokio::time::timeout(Duration::from_millis(limit_ms), call).await {
        Ok(ended) => ended,
        Err(_) => Ended::Outcome(Outcome::ToolError(Error::from(TimeLimitExceeded {
            error: "Time limit exceeded",
            limit_ms,
        }))),
    }
}

/// The failure of a call that ran past its time limit.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct TimeLimitExceeded {
    error: &'static str,
    limit_ms: u64,
}

impl ErrorBody for TimeLimitExceeded {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Timeout
    }
}

/// The refusal of a call when every slot is taken and as many calls wait.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct TooManyConcurrentCalls {
    error: &'static str,
    max_concurrent: u32,
}

impl ErrorBody for TooManyConcurrentCalls {
    fn kind(&self) -> ErrorKind {
        ErrorKind::TooMany
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn as_many_calls_wait_as_may_run_and_one_more_is_refused() {
        let slots = Slots::new(2);
        let held = [slots.take().await.unwrap(), slots.take().await.unwrap()];
        let mut waiting: Vec<_> = (0..2).map(|_| Box::pin(slots.take())).collect();
        for wait in &mut waiting {
            assert!(futures_poll(wait.as_mut()).is_none(), "both slots are taken: it waits");
        }
        let refused = slots.take().await.unwrap_err();
        assert_eq!(refused.kind, ErrorKind::TooMany);
        assert_eq!(refused.body, serde_json::json!({ "error": "Too many concurrent calls", "maxConcurrent": 2 }));
        drop(waiting.pop());
        let mut again = Box::pin(slots.take());
        assert!(futures_poll(again.as_mut()).is_none(), "a cancelled wait makes room: this one waits");
        drop(held);
        assert!(waiting[0].as_mut().await.is_ok(), "a freed slot goes to the call waiting");
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_past_its_limit_is_dropped_and_fails_with_the_limit() {
        let dropped = std::sync::Arc::new(());
        let held = std::sync::Arc::clone(&dropped);
        let outcome = within(50, async move {
            let _held = held;
            tokio::time::sleep(Duration::from_secs(1)).await;
            Ended::Outcome(Outcome::Ok(crate::api::output::Output::Json(serde_json::Value::Null)))
        })
        .await;
        let Ended::Outcome(Outcome::ToolError(error)) = outcome else { panic!("{outcome:?}") };
        assert_eq!((error.kind, error.kind.http_status()), (ErrorKind::Timeout, 504));
        assert_eq!(error.body, serde_json::json!({ "error": "Time limit exceeded", "limitMs": 50 }));
        assert_eq!(std::sync::Arc::strong_count(&dropped), 1, "the call's future is dropped");
    }

    /// Polls once with a waker that does nothing: `None` while pending.
    fn futures_poll<F: Future>(f: std::pin::Pin<&mut F>) -> Option<F::Output> {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match f.poll(&mut cx) {
            std::task::Poll::Ready(v) => Some(v),
            std::task::Poll::Pending => None,
        }
    }
}
