//! The review flow against the greeter, through the harness its golden tests use, in a scratch
//! copy of this crate's sessions and docs page: the greeter with another description of `greet`
//! fails the session that lists its tools and no other, leaves it and the docs page pending, and
//! `golden accept` makes the next run pass with no other step; a new session written as a script
//! fails with the command that records it, and leaves what the greeter answered pending.
//!
//! `golden accept` runs through `tooltable_golden::cli::run`, the code of the `golden` binary,
//! in this process: cargo gives a test the binaries of its own package only.

#[path = "../../tests/support/mod.rs"]
mod support;

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::process::ExitCode;

use support::Scratch;
use tooltable_golden::{Golden, pending};

const GREETER: &str = env!("CARGO_BIN_EXE_greeter");
const DESCRIPTION: &str = "Greets someone by name.";
const CHANGED: &str = "Greets a person.";

/// A scratch copy of this crate's sessions (`sessions/`) and docs page (`docs/tools.md`).
fn copy_of_this_crate(name: &str) -> Scratch {
    let dir = Scratch::new(name);
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    for folder in ["sessions", "docs"] {
        std::fs::create_dir_all(dir.join(folder)).expect("a scratch folder");
        for entry in std::fs::read_dir(here.join(folder)).expect("the crate's folder").flatten() {
            let file = format!("{folder}/{}", entry.file_name().to_string_lossy());
            if pending::checked_of(&entry.path()).is_none() {
                dir.write(&file, &std::fs::read_to_string(entry.path()).expect("a text file"));
            }
        }
    }
    dir
}

/// The greeter after a change: a script in `dir` that starts it with `greet` described as
/// [`CHANGED`].
fn changed_greeter(dir: &Scratch) -> String {
    use std::os::unix::fs::PermissionsExt as _;
    let script = dir.join("greeter-changed");
    dir.write("greeter-changed", &format!("#!/bin/sh\nGREET_DESCRIPTION='{CHANGED}' exec '{GREETER}' \"$@\"\n"));
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("an executable script");
    script.display().to_string()
}

/// The harness over `bin` and the scratch sessions, as `golden_tests!` sets it up.
fn golden(bin: &str, dir: &Scratch) -> Golden {
    Golden::new(bin, dir.join("sessions")).in_cargo_test(env!("CARGO_PKG_NAME"), env!("CARGO_CRATE_NAME"))
}

/// Runs a check of the harness: `Err` holds what it panicked with.
fn outcome(check: impl FnOnce()) -> Result<(), String> {
    std::panic::catch_unwind(AssertUnwindSafe(check)).map_err(|panic: Box<dyn Any + Send>| {
        panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default()
    })
}

/// Whether a diff has a line removing `old` and one adding `new`.
fn changes(diff: &str, old: &str, new: &str) -> bool {
    let lines = |sign: char, text: &str| diff.lines().any(|l| l.starts_with(sign) && l.contains(text));
    lines('-', old) && lines('+', new)
}

#[test]
fn a_changed_description_fails_the_listing_only_and_golden_accept_makes_the_next_run_pass() {
    let dir = copy_of_this_crate("greeter-changed");
    let changed = changed_greeter(&dir);
    let bin = changed.as_str();

    assert_eq!(outcome(|| golden(bin, &dir).check("greeting")), Ok(()), "the greeting lists no tool");
    let failure = outcome(|| golden(bin, &dir).check("listing")).expect_err("the listing differs");
    assert!(changes(&failure, DESCRIPTION, CHANGED), "{failure}");
    assert!(failure.contains("golden accept"), "the failure says how to take the change: {failure}");
    assert!(dir.read("sessions/listing.session.new").contains(CHANGED));
    let failure = outcome(|| golden(bin, &dir).check_docs()).expect_err("the tool tables differ");
    assert!(failure.contains("the generated regions are out of date"), "{failure}");
    assert!(changes(&failure, &format!("| `greet` | {DESCRIPTION} |"), &format!("| `greet` | {CHANGED} |")));
    let root = dir.path().to_str().expect("a UTF-8 path");
    let found = pending::find(dir.path());
    assert_eq!(
        found,
        [dir.join("docs/tools.md.new"), dir.join("sessions/listing.session.new")],
        "nothing else is pending"
    );

    assert_eq!(tooltable_golden::cli::run(["golden", "accept", root]), ExitCode::SUCCESS);
    assert!(pending::find(dir.path()).is_empty());
    let page = dir.read("docs/tools.md");
    assert!(page.contains(&format!("| `greet` | {CHANGED} |")), "the table, from the greeter:\n{page}");
    assert!(
        page.contains(&format!("\"description\":\"{CHANGED}\"")),
        "the listing's walkthrough, from the session:\n{page}"
    );
    assert!(!page.contains(DESCRIPTION), "{page}");
    for session in ["greeting", "listing"] {
        assert_eq!(outcome(|| golden(bin, &dir).check(session)), Ok(()), "{session}, once accepted");
    }
    assert_eq!(outcome(|| golden(bin, &dir).check_docs()), Ok(()), "the page, once accepted");
    assert!(pending::find(dir.path()).is_empty());
    assert!(outcome(|| golden(GREETER, &dir).check("listing")).is_err(), "the greeter as it was no longer matches");
}

#[test]
fn a_new_script_fails_with_the_command_that_records_it_and_leaves_the_answers_pending() {
    let dir = copy_of_this_crate("greeter-script");
    let script = concat!(
        "# A client greets Grace.\n",
        "→ {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {\"protocolVersion\": \"2025-11-25\", \"capabilities\": {}, \"clientInfo\": {\"name\": \"golden\", \"version\": \"1\"}}}\n",
        "→ {\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}\n",
        "→ {\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/call\", \"params\": {\"name\": \"greet\", \"arguments\": {\"name\": \"Grace\"}}}\n",
    );
    dir.write("sessions/grace.session", script);

    let failure = outcome(|| golden(GREETER, &dir).check("grace")).expect_err("nothing is recorded yet");
    assert!(failure.contains("grace.session: no answer is recorded yet"), "{failure}");
    let command = format!("GOLDEN_BLESS=1 cargo test -p golden-example --test {} grace", env!("CARGO_CRATE_NAME"));
    assert!(failure.contains(&command), "the failure gives `{command}`: {failure}");
    assert_eq!(dir.read("sessions/grace.session"), script, "the script is as it was");
    let answered = dir.read("sessions/grace.session.new");
    assert!(answered.starts_with("# A client greets Grace.\n"), "{answered}");
    assert!(answered.contains("\"serverInfo\": {\"name\": \"golden-example\", \"version\": \"0.1.0\"}"), "{answered}");
    assert!(answered.contains("\"structuredContent\": {\"text\": \"Hello, Grace!\"}"), "{answered}");
    assert!(!answered.contains("ready:"), "the ready log is not what the session is about:\n{answered}");

    let pending = dir.join("sessions/grace.session.new").display().to_string();
    assert_eq!(tooltable_golden::cli::run(["golden", "accept", &pending]), ExitCode::SUCCESS);
    assert_eq!(outcome(|| golden(GREETER, &dir).check("grace")), Ok(()), "accepted, the script is a transcript");
}
