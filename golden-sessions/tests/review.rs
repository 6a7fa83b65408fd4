//! `golden review`, `accept` and `reject` on pending files made by hand: the real binary, its
//! answers piped to its stdin, and the docs page a folder's golden.json names brought up to date
//! by an accepted session.

mod support;

use std::process::{Command, Output};

use support::{Scratch, run_in, text};

const GOLDEN: &str = env!("CARGO_BIN_EXE_golden");

const OLD: &str = "# Ping.\n→ {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\n← {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {}}\n";
const NEW: &str = "# Ping.\n→ {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\n← {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {\"pong\": true}}\n";
const PAGE: &str = "# Page\n\nProse stays.\n\n<!-- generated:walkthrough session=ping -->\n<!-- end generated -->\n";

/// `golden ARGS` in `dir`, `input` on its stdin.
fn golden(dir: &Scratch, args: &[&str], input: &str) -> Output {
    run_in(GOLDEN, dir, args, input)
}

/// A folder with sessions `a` and `b`, each with a pending change, and a page made from `ping`.
fn folder() -> Scratch {
    let dir = Scratch::new("review");
    dir.write("golden.json", r#"{"docs": ["page.md"]}"#);
    dir.write("page.md", PAGE);
    for name in ["ping", "other"] {
        dir.write(&format!("{name}.session"), OLD);
        dir.write(&format!("{name}.session.new"), NEW);
    }
    dir
}

#[test]
fn review_shows_each_diff_and_takes_the_answers_piped_to_it() {
    let dir = folder();
    // `other` first (sorted): rejected; then `ping`: accepted.
    let out = golden(&dir, &["review"], "r\na\n");
    let shown = text(&out.stdout);
    assert!(shown.contains("-← {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {}}"), "{shown}");
    assert!(shown.contains("+← {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {\"pong\": true}}"), "{shown}");
    assert!(shown.contains("(1/2)") && shown.contains("(2/2)"), "{shown}");
    assert!(shown.contains("1 accepted, 1 rejected, 0 skipped"), "{shown}");
    assert_eq!(dir.read("other.session"), OLD);
    assert!(!dir.has("other.session.new"));
    assert_eq!(dir.read("ping.session"), NEW);
    assert!(!dir.has("ping.session.new"));
    let page = dir.read("page.md");
    assert!(page.contains("Prose stays.\n"), "{page}");
    assert!(
        page.contains("← {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"pong\":true}}\n"),
        "the page shows the accepted session:\n{page}"
    );
}

#[test]
fn review_skips_what_it_is_not_told_to_take() {
    let dir = folder();
    let out = golden(&dir, &["review", "."], "s\n");
    assert!(text(&out.stdout).contains("0 accepted, 0 rejected, 2 skipped"), "{}", text(&out.stdout));
    assert!(dir.has("ping.session.new") && dir.has("other.session.new"));
    assert_eq!(dir.read("ping.session"), OLD);
}

#[test]
fn accept_and_reject_take_files_folders_or_the_current_folder() {
    let dir = folder();
    let out = golden(&dir, &["reject", "other.session"], "");
    assert!(text(&out.stdout).contains("rejected other.session.new"), "{}", text(&out.stdout));
    assert!(!dir.has("other.session.new"));
    let out = golden(&dir, &["accept"], "");
    let said = text(&out.stdout);
    assert!(said.contains("accepted ./ping.session") && said.contains("page.md brought up to date"), "{said}");
    assert_eq!(dir.read("ping.session"), NEW);
    assert_eq!(dir.read("other.session"), OLD);
    assert!(text(&golden(&dir, &["accept"], "").stdout).contains("nothing pending in ."));
}

#[test]
fn a_path_with_nothing_pending_is_an_error() {
    let dir = folder();
    let out = Command::new(GOLDEN).args(["accept", "nowhere.session"]).current_dir(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nowhere.session: nothing pending for it"), "{}", text(&out.stderr));
}

#[test]
fn an_accepted_page_keeps_the_regions_an_accepted_session_rewrote() {
    let dir = folder();
    // A pending page as a docs check wrote it before the session was accepted: its walkthrough
    // made from the old session.
    let stale = "# Page\n\nProse stays.\n\n<!-- generated:walkthrough session=ping -->\nold\n<!-- end generated -->\n";
    dir.write("page.md.new", stale);
    golden(&dir, &["accept", "ping.session"], "");
    let pending = dir.read("page.md.new");
    assert!(pending.contains("\"pong\":true"), "the pending page was brought up to date too:\n{pending}");
    golden(&dir, &["accept", "page.md"], "");
    assert!(!dir.has("page.md.new"));
    assert_eq!(dir.read("page.md"), pending);
}
