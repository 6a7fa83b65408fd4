//! What a server author writes with: the attribute's targets ([`Operation`](operation::Operation)),
//! the context of a call ([`Cx`](context::Cx)), results and errors, content, resources, prompts,
//! descriptors and schemas, and the task store. Nothing here knows the engine: what a call needs
//! of its session and server, `Cx` asks through two narrow traits the engine implements
//! (`context::ServerSide`, `context::CallSide`).

pub(crate) mod content;
pub(crate) mod context;
pub(crate) mod descriptor;
#[doc(hidden)]
pub mod expansion;
pub(crate) mod logging;
pub mod numbers;
pub(crate) mod operation;
pub(crate) mod outcome;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod rpc;
pub mod schema;
pub(crate) mod table_error;
pub(crate) mod tasks;

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, poisoned or not: a handler that panicked must not take the server down with it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
