//! The HTTP transport served in process on a free port, driven by a real HTTP client.

mod api_key;
mod batch;
mod connections;
mod cors;
mod hostile;
mod layers;
mod listen;
mod mcp;
mod nest;
mod oauth;
mod openapi;
mod principal;
mod rest;
mod revisions;
mod support;
mod task_owner;
