//! The recorded sessions in golden-sessions/conformance-server, replayed over stdio and HTTP, and
//! the docs page generated from them (named in its golden.json).

use tooltable_golden::Golden;

fn golden() -> Golden {
    Golden::new(
        env!("CARGO_BIN_EXE_conformance-server"),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../golden-sessions/conformance-server"),
    )
}

tooltable_golden::golden_tests!(
    golden(),
    [handshake, tools, errors, notifications, client_requests, resources, prompts, stateless, from_ts_sdk]
);
