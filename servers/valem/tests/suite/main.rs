//! valem's integration tests, one module per concern, in one binary: one link instead of eight,
//! and the support modules compiled once. The golden session keeps its own binary (`--test golden`,
//! as in every server) so that blessing it runs nothing else.

#[path = "../support/mod.rs"]
mod support;

mod audit;
mod authoring;
mod blobs;
mod corrections;
mod crash;
mod cycle;
mod evolution;
mod examples;
mod guides;
mod inprocess;
mod journal;
mod jsonata_suite;
mod limits;
mod load;
mod pages;
mod pairing;
mod patch;
mod postgres_instances;
mod postgres_serve;
mod postgres_server;
mod resources;
mod sandbox_serve;
mod snapshots;
mod spec_fuzz;
mod sqlite;
mod stdio;
mod store;
mod store_on_postgres;
mod token_economy;
mod views;
