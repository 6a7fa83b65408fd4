//! The MCP tools (each also a REST route) over the model registry and the authoring substrate.

pub mod authoring;
pub mod errors;
pub mod evaluate;
pub mod guidance;
pub mod models;
pub mod projection;
pub mod reading;
pub mod registry;
pub mod spec_schema;
pub mod writing;

/// The URI of a model's state resource, which subscribers watch.
pub fn state_uri(id: &str) -> String {
    format!("valem://state/{id}")
}
