//! Golden sessions for tooltable servers. This crate starts with the raw MCP client that drives a
//! real server process over stdio or Streamable HTTP, one JSON-RPC message at a time.

pub mod client;
