//! The six read-only tools, each also a REST route.

pub mod entities;
pub mod errors;
pub mod export;
pub mod files;
pub mod objects;
pub mod service;
