//! The seed's worked example as a golden session (golden-sessions/valem), replayed over stdio and
//! HTTP, and the docs page generated from it.

use tooltable_golden::Golden;

fn golden() -> Golden {
    Golden::new(env!("CARGO_BIN_EXE_valem"), concat!(env!("CARGO_MANIFEST_DIR"), "/../../golden-sessions/valem"))
}

tooltable_golden::golden_tests!(
    golden(),
    [worked_example, part2, stateless],
    docs: [concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/servers/valem.md")]
);
