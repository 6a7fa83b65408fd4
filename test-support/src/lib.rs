//! What the repository's tests need from outside it: programs a machine may lack (PostgreSQL,
//! a browser, an SDK) and data the repository may not hold. A test that needs one is, when it
//! is absent, neither failed nor reported `ok`: it is ignored with the reason, and the build
//! says once what is missing and how to get it. Under `TOOLTABLE_REQUIRE_EXTERNAL=1` (which
//! `.ci/run` sets after installing everything) a missing one fails the build.
//!
//! libtest decides what is ignored when the test is compiled, so the lookup runs in the test
//! package's build script, which sets a `cfg` for each one found:
//!
//! ```toml
//! # Cargo.toml of the package whose tests need PostgreSQL
//! [build-dependencies]
//! test-support = { path = "../../test-support" }
//! [dev-dependencies]
//! test-support = { path = "../../test-support" }
//! ```
//!
//! ```no_run
//! // build.rs, the body of its `main`:
//! test_support::probe(&[&test_support::POSTGRES]);
//! ```
//!
//! and each test that needs it carries, beside `#[test]`,
//! `#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]`
//! and finds it with [`External::path`]:
//!
//! ```
//! if let Some(bin) = test_support::POSTGRES.locate() {
//!     assert!(bin.join("initdb").is_file());
//! }
//! ```
//!
//! Cargo runs the probe again when a folder where the program could appear changes (`PATH`'s,
//! and those the entry names) or one of its variables does, so installing it is noticed at the
//! next `cargo test`. The entries are in this crate, one list ([`CHROMIUM`], [`OIDC_PROVIDER`],
//! [`POSTGRES`], [`PYTHON_MCP`], [`TYPESCRIPT_MCP`], [`VALEM_EXAMPLES`]); see `README.md` for
//! adding one.

#![deny(unreachable_pub)]
#![warn(missing_docs, missing_debug_implementations)]

mod catalogue;
mod external;
mod probe;

pub use catalogue::{CHROMIUM, OIDC_PROVIDER, POSTGRES, PYTHON_MCP, TYPESCRIPT_MCP, VALEM_EXAMPLES};
pub use external::{External, on_path, path_list};
pub use probe::{REQUIRE, probe, required};
