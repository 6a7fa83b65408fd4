//! The real `conformance-server` binary under arbitrary input from the shared generator: byte
//! streams over stdio, raw HTTP requests to `/mcp`, and REST query strings and paths.

mod http;
mod process;
mod rest;
mod stdio;

#[path = "../../../../tests/fuzz.rs"]
mod fuzz;
