//! valem: a reactive model service. A model is a JSON document whose derived fields,
//! constraints, meta values and effects are JSONata expressions; every write runs one cycle
//! that recomputes what the write affects. Served as MCP tools (and REST routes).

pub mod audit;
pub mod audit_hook;
pub mod blobs;
pub mod browser;
pub mod engine;
pub mod namespace;
pub mod options;
pub mod resources;
pub mod sandbox;
mod server;
pub mod store;
pub mod tools;

pub use server::{server, server_durable, server_for, server_from, server_with, server_with_audit};

/// Counts what each evaluation allocates, so that its memory budget holds (see `engine/jsonata/meter.rs`).
#[global_allocator]
static ALLOCATOR: engine::jsonata::Metered = engine::jsonata::Metered;
