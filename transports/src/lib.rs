//! Transports for tooltable servers, and the standard command line that serves them: [`stdio`]
//! (newline-delimited JSON-RPC on stdin and stdout), [`http`] (Streamable HTTP at `/mcp`, with the
//! tools' REST routes and `/openapi.json` on the same port), and [`cli`], which gives every server
//! the commands `mcp`, `serve`, `call`, `tools` and `openapi`. And the other direction, a server
//! using others: [`client`], an MCP client of either era over stdio or Streamable HTTP;
//! [`proxy`], another MCP server's tools served as this server's own (a gateway); and
//! [`forward`], any REST API with an OpenAPI 3.1 document (another tooltable server's, say)
//! served as tools.
//!
//! A server's `main` is one call to [`cli::main`] with the function that builds the server
//! ([`cli::run`] when the server has command-line options or hooks of its own):
//!
//! ```no_run
//! use tooltable::Server;
//! use tooltable::tool::TableError;
//!
//! fn server() -> Result<Server<()>, TableError> {
//!     Server::builder(()).info(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")).build()
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     tooltable_transports::cli::main(tooltable_transports::package!(), server)
//! }
//! ```
//!
//! # Compatibility
//!
//! Rust 1.95 or newer; Linux and macOS. Not Windows yet: [`stdio`] reads and writes the standard
//! streams as raw file descriptors through `libc` (`poll`, `fcntl`, `read`, `write`), [`http`]
//! lowers its connection cap to the open-file limit (`getrlimit`) and half-closes a refused
//! connection with `shutdown(2)`, and `serve` stops on `SIGTERM` through Unix signals.

#![deny(unreachable_pub)]
#![warn(missing_docs, missing_debug_implementations)]
// HTTP handlers return `Result<T, HttpResponse>`: the error is the response to send, made once per
// request, so boxing it would buy nothing.
#![allow(clippy::result_large_err)]

pub mod cli;
pub mod client;
pub mod forward;
pub mod http;
pub mod proxy;
pub(crate) mod rest;
pub mod stdio;
