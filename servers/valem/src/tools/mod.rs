//! The MCP tools (each also a REST route) over the model registry and the authoring substrate.

mod addresses;
pub mod audit;
pub mod authoring;
pub mod blobs;
mod durable;
pub mod errors;
pub mod evaluate;
pub mod evolving;
pub mod guidance;
pub mod models;
pub mod patching;
pub mod pool;
pub mod projection;
pub mod reach;
pub mod reading;
pub mod registry;
pub mod snapshots;
pub mod spec_schema;
pub mod views;
pub mod writing;

/// The URI of a model's state resource, which subscribers watch.
pub fn state_uri(id: &str) -> String {
    format!("valem://state/{id}")
}

/// Refuses a value nested deeper than any input may be, before it travels to the evaluation
/// pool: the pool's threads have small stacks, and dropping a deep value recurses.
pub fn shallow<'a>(values: impl IntoIterator<Item = &'a serde_json::Value>) -> Result<(), errors::ModelError> {
    use crate::engine::limits::{MAX_DEPTH, depth};
    match values.into_iter().any(|v| depth(v) > MAX_DEPTH) {
        true => Err(errors::ModelError::TooLarge(format!("the value nests deeper than {MAX_DEPTH} levels"))),
        false => Ok(()),
    }
}
