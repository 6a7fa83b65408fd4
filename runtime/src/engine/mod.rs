//! The protocol engine: the server and its table of tools, sessions, JSON-RPC, the two eras of
//! the protocol (`handshake/`, revisions up to 2025-11-25; `stateless/`, revision 2026-07-28),
//! the method families (`methods/`) and running tasks. It implements what the author's API asks
//! of it (`crate::api::context::{ServerSide, CallSide}`); the API knows nothing of it.

pub(crate) mod era;
pub(crate) mod handshake;
pub mod jsonrpc;
pub(crate) mod methods;
pub(crate) mod outbox;
pub(crate) mod params;
pub(crate) mod server;
pub(crate) mod session;
pub(crate) mod stateless;
pub(crate) mod table;
pub(crate) mod tasks;
pub(crate) mod wire;
