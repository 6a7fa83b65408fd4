//! docs/guide/composition.md cannot drift from this example: every Rust excerpt is in one of its
//! source or test files word for word, and every `gateway` option the page names is one the
//! binary takes.

#[allow(dead_code)]
#[path = "../../notes/tests/common/markdown.rs"]
mod markdown;

use std::path::Path;

use markdown::{blocks_of, guide_page};

const PAGE: &str = "composition.md";

/// Every file under `dir`, with its text.
fn files(dir: &Path) -> Vec<(String, String)> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    entries
        .map(|entry| entry.expect("an entry").path())
        .flat_map(|path| match path.is_dir() {
            true => files(&path),
            false => vec![(path.display().to_string(), std::fs::read_to_string(&path).unwrap_or_default())],
        })
        .collect()
}

#[test]
fn every_rust_excerpt_is_in_the_example_word_for_word() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // In-process mounting is the runtime's, shown from its test.
    let mount = root.join("../../runtime/tests/mount.rs");
    let mount = vec![(mount.display().to_string(), std::fs::read_to_string(&mount).unwrap_or_default())];
    let sources: Vec<_> = files(&root.join("src")).into_iter().chain(files(&root.join("tests"))).chain(mount).collect();
    let excerpts = blocks_of(&guide_page(PAGE), "rust");
    assert!(excerpts.len() >= 5, "the page shows the example's code ({} excerpts)", excerpts.len());
    for excerpt in excerpts {
        assert!(
            sources.iter().any(|(_, text)| text.contains(&excerpt.text)),
            "{PAGE}:{}: this excerpt is in no file of the example:\n{}",
            excerpt.line,
            excerpt.text
        );
    }
}

/// The options of every `gateway` command the page's shell blocks run, and those its
/// "Options:" paragraph names.
fn options_named(page: &str) -> Vec<String> {
    let options = |text: &str| -> Vec<String> {
        text.split(|c: char| c.is_whitespace() || matches!(c, '`' | '(' | ')' | ','))
            .filter(|w| w.starts_with("--") && w.len() > 2)
            .map(|w| w.split('=').next().unwrap_or(w).to_owned())
            .collect()
    };
    let commands = blocks_of(page, "sh").into_iter().flat_map(|block| {
        let joined = block.text.replace("\\\n", " ");
        joined
            .lines()
            .filter(|l| l.split_whitespace().next().is_some_and(|w| w.ends_with("/gateway")))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    });
    let paragraph = page.split("\n\n").filter(|p| p.starts_with("Options:")).map(str::to_owned);
    commands.chain(paragraph).flat_map(|text| options(&text)).collect()
}

#[test]
fn every_option_the_page_names_is_the_gateway_s() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_gateway")).arg("--help").output().expect("gateway runs");
    let help = String::from_utf8_lossy(&help.stdout);
    let named = options_named(&guide_page(PAGE));
    for option in ["--mount", "--upstream-era", "--call-timeout-secs", "--startup-wait-secs"] {
        assert!(named.iter().any(|n| n == option), "{PAGE} names {option}: {named:?}");
    }
    for option in named {
        assert!(help.contains(&option), "{PAGE} names {option}, which `gateway --help` does not list:\n{help}");
    }
}
