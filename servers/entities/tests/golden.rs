//! The seed's captured session as a golden session (golden-sessions/entities/full.session),
//! replayed over stdio and HTTP against examples/full, the docs page generated from it, and its
//! capture compared with the seed's.

use std::path::PathBuf;

use serde_json::Value;
use tooltable_golden::Golden;
use tooltable_golden::docs::render;
use tooltable_golden::session::SessionFile;

const SESSIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../golden-sessions/entities");

fn example_root() -> String {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), "examples", "full"].iter().collect();
    root.canonicalize().expect("examples/full exists").display().to_string()
}

fn golden() -> Golden {
    Golden::new(env!("CARGO_BIN_EXE_entities"), SESSIONS).literal("ROOT", &example_root())
}

tooltable_golden::golden_tests!(golden(), [full, stateless, from_ts_sdk]);

#[test]
fn the_recorded_session_is_the_seeds_capture() {
    let text = std::fs::read_to_string(format!("{SESSIONS}/full.session")).unwrap();
    let mut capture = render::capture(&SessionFile::parse(&text).unwrap());
    let seed: Value = serde_json::from_str(include_str!("fixtures/seed-session.json")).unwrap();
    assert_eq!(capture, seed, "field for field");
    // The seed's capture lists keys sorted (it was made from Go maps); the docs page's capture
    // region says keys=sorted, so its text is the seed's to the character.
    render::sort_result_keys(&mut capture);
    assert_eq!(serde_json::to_string_pretty(&capture).unwrap(), serde_json::to_string_pretty(&seed).unwrap());
}
