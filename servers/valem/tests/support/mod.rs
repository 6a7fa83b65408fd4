//! What the integration tests share: in-process calls, a stdio client of the real binary, and the
//! JSONata suite's loader (the example and the round-trip bench include the last two by path).

pub mod browser;
pub mod busy;
pub mod in_process;
pub mod jsonata_suite;
pub mod mcp_client;
pub mod peer;
pub mod postgres;
pub mod rest;
#[allow(dead_code, reason = "shared with the golden sessions, which alone use the approving host")]
pub mod sandbox_host;
pub mod scratch;
pub mod served;
