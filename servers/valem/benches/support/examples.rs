//! The example specs written for the original service, in the folder `VALEM_EXAMPLES_DIR` names
//! (`test_support::VALEM_EXAMPLES`); a benchmark that needs one is skipped, with a note, without it.

use std::path::PathBuf;

use serde_json::Value;

fn dir() -> Option<PathBuf> {
    let dir = test_support::VALEM_EXAMPLES.locate();
    if dir.is_none() {
        eprintln!("skipped: {}", test_support::VALEM_EXAMPLES.absent());
    }
    dir
}

/// The spec in `<name>.json`, or `None` (with a note) when it cannot be read.
pub fn named(name: &str) -> Option<Value> {
    let path = dir()?.join(format!("{name}.json"));
    let read = std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()));
    read.map_err(|e| eprintln!("skipped: {}: {e}", path.display())).ok()
}

/// The name of the largest example file, by size.
#[allow(dead_code)] // not every benchmark reads it
pub fn largest() -> Option<String> {
    let dir = dir()?;
    let entries = std::fs::read_dir(&dir).map_err(|e| eprintln!("skipped: {}: {e}", dir.display())).ok()?;
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| Some((e.metadata().ok()?.len(), e.path().file_stem()?.to_string_lossy().into_owned())))
        .max()
        .map(|(_, name)| name)
}
