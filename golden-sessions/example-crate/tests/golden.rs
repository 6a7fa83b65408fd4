//! The greeter's golden sessions, in sessions/ beside Cargo.toml, replayed over stdio and HTTP
//! against the binary this crate builds; the page docs/tools.md is generated from them.

use tooltable_golden::Golden;

fn golden() -> Golden {
    Golden::new(env!("CARGO_BIN_EXE_greeter"), concat!(env!("CARGO_MANIFEST_DIR"), "/sessions"))
}

tooltable_golden::golden_tests!(golden(), [greeting, listing]);
