//! Transports for tooltable servers, and the standard command line that serves them.

pub mod cli;
pub mod http;
pub mod rest;
pub mod stdio;
