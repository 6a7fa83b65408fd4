//! The gateway binary with real upstreams: the conformance server over stdio and the entity
//! repository server over Streamable HTTP, each a process of its own, the gateway reached by the
//! framework's MCP client over stdio and over HTTP, in both eras.

mod calls;
mod support;
mod upstream_down;
