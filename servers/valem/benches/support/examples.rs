//! The example specs of `../shared/valem/examples`, read when that directory is present.

use std::path::PathBuf;

use serde_json::Value;

pub fn dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/valem/examples"))
}

/// The spec in `<name>.json`, or `None` (with a note) when it cannot be read.
pub fn named(name: &str) -> Option<Value> {
    let path = dir().join(format!("{name}.json"));
    let read = std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()));
    read.map_err(|e| eprintln!("skipped: {}: {e}", path.display())).ok()
}

/// The name of the largest example file, by size.
#[allow(dead_code)] // not every benchmark reads it
pub fn largest() -> Option<String> {
    let entries = std::fs::read_dir(dir()).map_err(|e| eprintln!("skipped: {}: {e}", dir().display())).ok()?;
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| Some((e.metadata().ok()?.len(), e.path().file_stem()?.to_string_lossy().into_owned())))
        .max()
        .map(|(_, name)| name)
}
