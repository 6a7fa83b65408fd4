//! The attribute's documentation, on the runtime's re-export, lists every key the macro accepts:
//! the keys are those the "unknown key" error names (its fixture's stderr, which trybuild keeps
//! equal to what the macro says), and each has a row of the table in `runtime/src/lib.rs`.

use std::path::Path;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

#[test]
fn every_key_the_macro_accepts_has_a_row_in_the_attribute_s_documentation() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let stderr = read(&here.join("tests/ui/unknown_key.stderr"));
    let (_, listed) = stderr.split_once("expected one of ").expect("the error lists the keys");
    let keys: Vec<&str> = listed.lines().next().unwrap().split(", ").map(|k| k.trim_matches('`')).collect();
    assert!(keys.len() >= 15 && keys.contains(&"deferred_task"), "the keys: {keys:?}");

    let docs = read(&here.join("../runtime/src/lib.rs"));
    let rows: Vec<&str> = docs.lines().filter_map(|l| l.strip_prefix("/// | ")).collect();
    for key in keys {
        let (bare, valued) = (format!("`{key}`"), format!("`{key} = "));
        let documents =
            |row: &&str| row.split(" | ").next().is_some_and(|cell| cell.contains(&bare) || cell.contains(&valued));
        assert!(rows.iter().any(documents), "no row of the table documents `{key}`");
    }
}
