//! What one computation (a cycle, a read, an authoring call) may spend: memory per evaluation,
//! the longest sequence, the time of the whole cycle, the size of the stored document, and
//! whether the caller still wants the answer.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::jsonata::Interrupt;

/// Whether the caller gave up on the computation; asked between evaluations.
pub type Cancelled = Arc<dyn Fn() -> bool + Send + Sync>;

#[derive(Clone)]
pub struct Budget {
    /// Bytes one evaluation may hold beyond its input.
    pub eval_bytes: usize,
    /// The longest sequence one evaluation may build.
    pub sequence: usize,
    /// The wall-clock time of one cycle, every expression it evaluates together.
    pub cycle_time: Duration,
    /// The largest document of one model, in bytes of compact JSON.
    pub model_bytes: usize,
    pub cancelled: Cancelled,
    /// Stops the running evaluation, and the computation, from another thread.
    pub interrupt: Interrupt,
}

impl Budget {
    /// The same bounds for a computation of its own, asking `cancelled` whether to go on.
    pub fn with_cancel(&self, cancelled: Cancelled) -> Budget {
        Budget { cancelled, interrupt: Interrupt::default(), ..self.clone() }
    }
}

impl fmt::Debug for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Budget")
            .field("eval_bytes", &self.eval_bytes)
            .field("sequence", &self.sequence)
            .field("cycle_time", &self.cycle_time)
            .field("model_bytes", &self.model_bytes)
            .finish_non_exhaustive()
    }
}

/// Why a computation stopped before its end; it changes nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum Stopped {
    /// The cycle ran past its time limit (milliseconds).
    TimeUp(u128),
    Cancelled,
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stopped::TimeUp(ms) => write!(f, "the cycle ran past its time limit of {ms} ms (--cycle-timeout-ms)"),
            Stopped::Cancelled => f.write_str("the call was cancelled"),
        }
    }
}

impl Default for Budget {
    /// The bounds of a process started with no options.
    fn default() -> Self {
        crate::options::Limits::DEFAULT.budget()
    }
}
