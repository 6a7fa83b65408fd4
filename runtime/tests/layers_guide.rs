//! docs/guide/layers.md cannot drift from the code it shows: every Rust excerpt is in one of the
//! files it is taken from, word for word.

#[allow(dead_code)]
#[path = "../../examples/notes/tests/common/markdown.rs"]
mod markdown;

use std::path::Path;

use markdown::blocks_of;

#[test]
fn every_rust_excerpt_is_in_the_code_word_for_word() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |path: &str| {
        let path = root.join(path);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
    };
    let page = read("../docs/guide/layers.md");
    let sources = [
        "tests/layers.rs",
        "src/api/layer/mod.rs",
        "../transports/tests/http/layers.rs",
        "../transports/src/cli/mod.rs",
    ]
    .map(read);
    let excerpts = blocks_of(&page, "rust");
    assert!(excerpts.len() >= 8, "the page shows the code ({} excerpts)", excerpts.len());
    for excerpt in excerpts {
        assert!(
            sources.iter().any(|source| source.contains(&excerpt.text)),
            "layers.md:{}: this excerpt is in none of the files it is taken from:\n{}",
            excerpt.line,
            excerpt.text
        );
    }
}
