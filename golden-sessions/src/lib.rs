//! Golden sessions for MCP servers: transcripts a person can read (`→` sent, `←` received, `#`
//! comments), recorded from a real host (`golden record`), replayed against a real server over
//! stdio and HTTP as regression tests (`golden replay`, [`Golden`] for a server crate's tests),
//! reviewed when they change (`golden review`, `accept`, `reject`), and the source of generated
//! documentation.
//!
//! Rust 1.95 or newer; Linux and macOS (it builds for Windows, where it is not tested).

#![deny(missing_docs, unreachable_pub)]

pub mod cli;
pub mod client;
pub mod config;
pub mod docs;
pub mod harness;
pub mod matching;
pub mod mcp_schema;
pub mod pending;
pub mod placeholders;
pub mod process;
pub mod record;
pub mod redact;
pub mod replay;
pub mod review;
pub mod session;
pub mod tokens;

pub use harness::{BLESS, Golden, REGENERATE, Transport};
