//! docs/guide/embedding.md cannot drift from this example: every Rust excerpt is in its source
//! word for word.

#[allow(dead_code)]
#[path = "../../notes/tests/common/markdown.rs"]
mod markdown;

use markdown::{blocks_of, guide_page};

#[test]
fn every_rust_excerpt_is_in_the_example_word_for_word() {
    let source = include_str!("../src/main.rs");
    let excerpts = blocks_of(&guide_page("embedding.md"), "rust");
    assert!(excerpts.len() >= 4, "the page shows the example's code ({} excerpts)", excerpts.len());
    for excerpt in excerpts {
        assert!(
            source.contains(&excerpt.text),
            "embedding.md:{}: this excerpt is not in src/main.rs:\n{}",
            excerpt.line,
            excerpt.text
        );
    }
}
