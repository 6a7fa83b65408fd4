//! docs/guide/writing-a-server.md cannot drift from this example: every Rust excerpt is in one of
//! its source files word for word, the `Cargo.toml` it shows names the crates the example
//! depends on, with the versions the workspace builds with, and its table of error kinds is the
//! runtime's.

mod common;

use std::path::Path;

use common::markdown::{blocks_of, guide_page, workspace_root};
use toml::Table;
use tooltable::ErrorKind;

const PAGE: &str = "writing-a-server.md";

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn toml_file(path: &Path) -> Table {
    read(path).parse().unwrap_or_else(|e| panic!("{} is not TOML: {e}", path.display()))
}

fn table<'a>(t: &'a Table, key: &str) -> &'a Table {
    t.get(key).and_then(toml::Value::as_table).unwrap_or_else(|| panic!("no [{key}] table"))
}

#[test]
fn every_rust_excerpt_is_in_the_example_word_for_word() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let sources: Vec<(String, String)> = std::fs::read_dir(&src)
        .expect("src/ is readable")
        .map(|entry| entry.expect("an entry").path())
        .map(|path| (path.display().to_string(), read(&path)))
        .collect();
    let excerpts = blocks_of(&guide_page(PAGE), "rust");
    assert!(excerpts.len() >= 10, "the page shows the example's code ({} excerpts)", excerpts.len());
    for excerpt in excerpts {
        assert!(
            sources.iter().any(|(_, text)| text.contains(&excerpt.text)),
            "{PAGE}:{}: this excerpt is in no file of {}:\n{}",
            excerpt.line,
            src.display(),
            excerpt.text
        );
    }
}

#[test]
fn the_cargo_toml_names_the_example_s_crates_with_the_workspace_versions() {
    let blocks = blocks_of(&guide_page(PAGE), "toml");
    assert_eq!(blocks.len(), 1, "the page shows one Cargo.toml");
    let shown: Table = blocks[0].text.parse().unwrap_or_else(|e| panic!("{PAGE}:{}: not TOML: {e}", blocks[0].line));
    let example = toml_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
    let root = toml_file(&workspace_root().join("Cargo.toml"));
    let workspace = table(table(&root, "workspace"), "dependencies");

    assert_eq!(table(&shown, "package")["name"], table(&example, "package")["name"]);
    assert_eq!(shown["bin"], example["bin"], "the binary's name and path");

    let shown_deps = table(&shown, "dependencies");
    let example_deps = table(&example, "dependencies");
    let names = |t: &Table| t.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(shown_deps), names(example_deps), "the page names exactly the example's dependencies");

    for (name, spec) in shown_deps {
        let ours = &workspace[name];
        if let Some(path) = ours.get("path").and_then(toml::Value::as_str) {
            let shown_path = spec.get("path").and_then(toml::Value::as_str).unwrap_or_default();
            assert!(
                shown_path.ends_with(&format!("/{path}")),
                "{name}: a path dependency on the {path}/ folder, not {spec}"
            );
            continue;
        }
        let version = |v: &toml::Value| v.as_str().or_else(|| v.get("version")?.as_str()).map(str::to_owned);
        assert_eq!(version(spec), version(ours), "{name}: the workspace's version");
        let features = |v: &toml::Value| -> Vec<String> {
            v.get("features")
                .and_then(toml::Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|f| f.as_str().map(str::to_owned))
                .collect()
        };
        let extra: Vec<String> = features(spec).into_iter().filter(|f| !features(ours).contains(f)).collect();
        assert!(extra.is_empty(), "{name}: features the workspace does not enable: {extra:?}");
    }
    let serde_features = shown_deps["serde"].get("features").map(toml::Value::to_string).unwrap_or_default();
    assert!(serde_features.contains("derive"), "serde needs its derive feature");
}

#[test]
fn the_error_table_lists_every_kind_with_its_rest_status() {
    let page = guide_page(PAGE);
    let rows: Vec<(String, u16)> = page
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let kind = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((kind.to_owned(), cells.get(2)?.parse().ok()?))
        })
        .collect();
    let kinds: Vec<(String, u16)> = ErrorKind::ALL.iter().map(|k| (format!("{k:?}"), k.http_status())).collect();
    assert_eq!(rows, kinds, "{PAGE}: the table of `ErrorKind`s, in the runtime's order");
}
