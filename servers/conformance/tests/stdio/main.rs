//! The real `conformance-server` binary driven over stdio with raw JSON-RPC lines.

mod calls;
mod client_requests;
mod errors;
mod framing;
mod handshake;
mod support;
mod tasks;
