//! Transports for tooltable servers, and the standard command line that serves them.

// HTTP handlers return `Result<T, HttpResponse>`: the error is the response to send, made once per
// request, so boxing it would buy nothing.
#![allow(clippy::result_large_err)]

pub mod cli;
pub mod http;
pub mod rest;
pub mod stdio;
