//! Golden sessions for tooltable servers: transcripts a person can read (`→` sent, `←` received,
//! `#` comments), replayed against a real server over stdio and HTTP as regression tests,
//! re-recorded with `GOLDEN_BLESS=1`, and the source of generated documentation.
//!
//! Rust 1.95 or newer; Linux and macOS (it builds for Windows, where it is not tested).

pub mod client;
pub mod docs;
pub mod harness;
pub mod mcp_schema;
pub mod placeholders;
pub mod process;
pub mod replay;
pub mod session;

pub use harness::{BLESS, Golden, REGENERATE, Transport};
