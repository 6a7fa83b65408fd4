//! The reactive model engine: specs, expressions, the dependency graph and the cycle.

pub mod budget;
pub mod compiled;
pub mod cycle;
pub mod evolution;
pub mod evolution_schema;
pub mod evolution_views;
pub mod findings;
pub mod graph;
pub mod index;
pub mod journal;
pub mod jsonata;
pub mod limits;
pub mod model;
pub mod patch;
pub mod path;
pub mod ring;
pub mod schema;
pub mod snapshot;
pub mod spec;
pub mod state;
pub mod stored;
pub mod testing;
pub mod trace;
pub mod view;
