//! Tools forwarded to real servers (the entity repository server and the conformance server,
//! started as processes on free loopback ports) and to fake ones that misbehave.

mod faults;
mod servers;
mod support;
