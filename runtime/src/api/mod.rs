//! What a server author writes with: tools ([`tool`]), the context of a call
//! ([`Cx`](context::Cx)), errors and outputs, content, resources, prompts, schemas and the task
//! store. Nothing here knows the engine: what a call needs of its session and server, `Cx` asks
//! through two narrow traits the engine implements (`context::ServerSide`, `context::CallSide`).

pub mod content;
pub mod context;
pub(crate) mod descriptor;
pub(crate) mod error;
#[doc(hidden)]
pub mod expansion;
#[doc(hidden)]
pub(crate) mod json_text;
pub mod layer;
pub(crate) mod logging;
pub mod numbers;
pub(crate) mod output;
pub mod prompts;
pub mod resources;
pub(crate) mod rpc;
pub mod schema;
pub(crate) mod table_error;
pub mod tasks;
pub mod tool;

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, poisoned or not: a handler that panicked must not take the server down with it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
