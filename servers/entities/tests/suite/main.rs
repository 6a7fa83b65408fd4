//! The entity repository's integration tests, one module per concern, in one binary: one link
//! instead of four, and `common` compiled once. The golden session keeps its own binary
//! (`--test golden`, as in every server) so that blessing it runs nothing else.

mod common;
#[path = "../../../../tests/fuzz.rs"]
mod fuzz;

mod arbitrary;
mod bad_input;
mod reload;
mod repository;
mod rest_fuzz;
mod rest_routes;
mod served;
mod tools;
