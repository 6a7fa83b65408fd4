//! Tools forwarded to real servers (the entity repository server and the conformance server,
//! started as processes on free loopback ports), to a tooltable server served in process, and to
//! fake servers that misbehave.

mod faults;
mod inprocess;
mod mirror;
mod servers;
mod support;
/// The HTTP tests' table, served in process.
#[allow(dead_code)]
#[path = "../http/support.rs"]
mod table;
