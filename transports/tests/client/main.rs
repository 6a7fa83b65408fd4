//! The MCP client against a real server (the conformance server, over stdio and over Streamable
//! HTTP), in both eras: requests, progress, logs, the server's questions, cancellation,
//! deadlines, list changes and the end of the connection.

#[allow(dead_code)]
#[path = "../forward/support.rs"]
mod support;

mod eras;
