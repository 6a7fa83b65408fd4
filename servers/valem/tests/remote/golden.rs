//! The recorded sessions of golden-sessions/valem, replayed over stdio in remote mode against a
//! live server started with an API key and its models in a store on disk (`--data`, a fresh
//! directory per session): the transcripts the embedded server gives, unchanged.

use tooltable_golden::Golden;

use crate::scratch::Scratch;
use crate::served::Served;

const KEY: &str = "golden-remote-key";

fn replay(session: &str) {
    let data = Scratch::new(&format!("remote-{session}"));
    let data_dir = data.path().to_str().expect("a UTF-8 temporary directory");
    let served = Served::start(crate::valem(), &["--api-key", KEY, "--data", data_dir]);
    let golden =
        Golden::new(env!("CARGO_BIN_EXE_valem"), concat!(env!("CARGO_MANIFEST_DIR"), "/../../golden-sessions/valem"));
    golden.check_stdio_with(session, &["--url".into(), served.url.clone(), "--api-key".into(), KEY.into()]);
}

#[test]
fn worked_example_against_a_live_server() {
    replay("worked_example");
}

#[test]
fn part2_against_a_live_server() {
    replay("part2");
}

#[test]
fn stateless_against_a_live_server() {
    replay("stateless");
}
