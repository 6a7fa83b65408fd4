//! Golden sessions for MCP servers: transcripts a person can read (`→` sent, `←` received, `#`
//! comments), recorded from a real host (`golden record`), replayed against a real server over
//! stdio and HTTP as regression tests (`golden replay`, [`Golden`] for a server crate's tests),
//! reviewed when they change (`golden review`, `accept`, `reject`), and the source of generated
//! documentation.
//!
//! Rust 1.95 or newer; Linux and macOS (it builds for Windows, where it is not tested).
//!
//! ```
//! use std::process::ExitCode;
//!
//! // A session: what the client sends (→) and what the server answers (←).
//! let dir = std::env::temp_dir().join(format!("golden-doc-crate-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let session = dir.join("ping.session");
//! std::fs::write(&session, "# A ping.\n→ {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\n← {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {}}\n")?;
//!
//! // Replayed against a server, here one line of shell that answers the ping.
//! let server = r#"read request; echo '{"jsonrpc":"2.0","id":1,"result":{}}'"#;
//! let code = tooltable_golden::cli::run(["golden", "replay", session.to_str().unwrap(), "--", "sh", "-c", server]);
//! assert_eq!(code, ExitCode::SUCCESS, "the server answers as recorded");
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), std::io::Error>(())
//! ```

#![deny(unreachable_pub)]
#![warn(missing_docs, missing_debug_implementations)]

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
