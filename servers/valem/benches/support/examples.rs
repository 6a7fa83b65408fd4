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
