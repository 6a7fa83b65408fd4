//! The fenced code blocks of a docs page.

use std::path::{Path, PathBuf};

/// The repository's root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the workspace root exists")
}

/// A page of `docs/guide/`.
pub fn guide_page(name: &str) -> String {
    let path = workspace_root().join("docs/guide").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// One fenced block: its info string (```json → `json`), its first line's number and its text.
pub struct Block {
    pub lang: String,
    pub line: usize,
    pub text: String,
}

/// Every ``` block of a page, in order. An unclosed fence is a broken page.
pub fn blocks(page: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (n, line) in page.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(lang)) => open = Some(Block { lang: lang.trim().to_owned(), line: n + 2, text: String::new() }),
            (Some(_), Some(_)) => blocks.extend(open.take()),
            (Some(block), None) => {
                block.text += line;
                block.text.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "a ``` block is not closed");
    blocks
}

/// The blocks of one language.
pub fn blocks_of(page: &str, lang: &str) -> Vec<Block> {
    blocks(page).into_iter().filter(|b| b.lang == lang).collect()
}
