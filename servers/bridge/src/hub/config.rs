//! The hub's configuration folder: `capabilities/*.yaml` and `flows/*.yaml`, loaded whole, and
//! loaded again when a file in either folder changes (polled: names, sizes and times).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use serde::Serialize;

use super::capabilities::{Capability, CapabilityFile};
use super::flows::{self, Flow, MAX_FLOW_BYTES};

pub const CAPABILITIES_DIR: &str = "capabilities";
pub const FLOWS_DIR: &str = "flows";

/// A file that did not load, and why.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct InvalidFile {
    pub file: String,
    pub reason: String,
}

/// Everything loaded from the folder at one revision.
#[derive(Debug, Default)]
pub struct Loaded {
    pub revision: u64,
    pub capabilities: BTreeMap<String, Capability>,
    pub invalid_capabilities: Vec<InvalidFile>,
    pub flows: BTreeMap<String, Flow>,
    pub invalid_flows: Vec<InvalidFile>,
}

/// What the folder looked like: each YAML file's path, size and modification time.
type Snapshot = Vec<(PathBuf, u64, Option<SystemTime>)>;

/// The configuration folder and what was last loaded from it.
pub struct Config {
    dir: PathBuf,
    loaded: RwLock<Arc<Loaded>>,
    seen: std::sync::Mutex<Snapshot>,
}

impl Config {
    /// Loads the folder; it must exist (its subfolders need not).
    pub fn open(dir: &Path) -> Result<Config, String> {
        if !dir.is_dir() {
            return Err(format!("{}: not a folder", dir.display()));
        }
        let seen = snapshot(dir);
        let loaded = load(dir, 1);
        Ok(Config { dir: dir.to_owned(), loaded: RwLock::new(Arc::new(loaded)), seen: seen.into() })
    }

    pub fn current(&self) -> Arc<Loaded> {
        Arc::clone(&self.loaded.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Loads the folder again when a file changed, under the next revision; true when it did.
    pub fn reload_if_changed(&self) -> bool {
        let now = snapshot(&self.dir);
        {
            let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
            if *seen == now {
                return false;
            }
            *seen = now;
        }
        let next = load(&self.dir, self.current().revision + 1);
        tracing::info!(
            revision = next.revision,
            capabilities = next.capabilities.len(),
            flows = next.flows.len(),
            "reloaded"
        );
        *self.loaded.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(next);
        true
    }
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    files
}

fn snapshot(dir: &Path) -> Snapshot {
    [CAPABILITIES_DIR, FLOWS_DIR]
        .iter()
        .flat_map(|sub| yaml_files(&dir.join(sub)))
        .map(|p| {
            let meta = std::fs::metadata(&p).ok();
            let size = meta.as_ref().map_or(0, |m| m.len());
            let modified = meta.and_then(|m| m.modified().ok());
            (p, size, modified)
        })
        .collect()
}

/// A file's text, refused beyond the size limit.
fn read(path: &Path) -> Result<String, String> {
    let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if size > MAX_FLOW_BYTES as u64 {
        return Err(format!("the file is {size} bytes; the limit is {MAX_FLOW_BYTES}"));
    }
    std::fs::read_to_string(path).map_err(|e| e.to_string())
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn load(dir: &Path, revision: u64) -> Loaded {
    let (capabilities, invalid_capabilities) = load_folder(dir, CAPABILITIES_DIR, "id", |text| {
        let raw: CapabilityFile = yaml_serde::from_str(text).map_err(|e| e.to_string())?;
        let c = Capability::from_file(raw)?;
        Ok((c.id.clone(), c))
    });
    let (flows, invalid_flows) = load_folder(dir, FLOWS_DIR, "name", |text| {
        let f = flows::parse(text, &capabilities).map_err(|e| e.reason())?;
        Ok((f.name.clone(), f))
    });
    Loaded { revision, capabilities, invalid_capabilities, flows, invalid_flows }
}

/// Every YAML file of a subfolder, parsed into a keyed item; a file that does not parse, or
/// whose key (`what`) an earlier file took, is listed with the reason.
fn load_folder<T>(
    dir: &Path,
    sub: &str,
    what: &str,
    parse: impl Fn(&str) -> Result<(String, T), String>,
) -> (BTreeMap<String, T>, Vec<InvalidFile>) {
    let mut items = BTreeMap::new();
    let mut owners: BTreeMap<String, String> = BTreeMap::new();
    let mut invalid = Vec::new();
    for path in yaml_files(&dir.join(sub)) {
        let file = format!("{sub}/{}", file_name(&path));
        match read(&path).and_then(|text| parse(&text)) {
            Ok((key, _)) if owners.contains_key(&key) => {
                let reason = format!("the {what} {key:?} is already taken by {}", owners[&key]);
                invalid.push(InvalidFile { file, reason });
            }
            Ok((key, item)) => {
                owners.insert(key.clone(), file);
                items.insert(key, item);
            }
            Err(reason) => invalid.push(InvalidFile { file, reason }),
        }
    }
    (items, invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, file: &str, text: &str) {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn loads_capabilities_and_flows_and_names_what_did_not_load() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "capabilities/risk.yaml", "id: tool.risk\nkind: risk\n");
        write(dir.path(), "capabilities/risk2.yaml", "id: tool.risk\nkind: echo\n");
        write(dir.path(), "capabilities/bad.yaml", "id: x\nkind: risk\nagents: [a]\n");
        write(dir.path(), "flows/ok.yaml", "name: ok\nsteps: [{ id: a, call: tool.risk }]\n");
        write(dir.path(), "flows/broken.yaml", "name: broken\nsteps: [\n");
        let config = Config::open(dir.path()).unwrap();
        let loaded = config.current();
        assert_eq!(loaded.capabilities.keys().collect::<Vec<_>>(), ["tool.risk"]);
        assert_eq!(
            loaded.invalid_capabilities,
            [
                InvalidFile {
                    file: "capabilities/bad.yaml".into(),
                    reason: "`agents` applies to kind `wakeup` only".into()
                },
                InvalidFile {
                    file: "capabilities/risk2.yaml".into(),
                    reason: "the id \"tool.risk\" is already taken by capabilities/risk.yaml".into()
                },
            ]
        );
        assert_eq!(loaded.flows.keys().collect::<Vec<_>>(), ["ok"]);
        assert_eq!(loaded.invalid_flows.len(), 1);
        assert!(loaded.invalid_flows[0].reason.starts_with("line 3, column 1:"), "{:?}", loaded.invalid_flows);
    }

    #[test]
    fn a_changed_folder_is_loaded_again_under_the_next_revision() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "capabilities/risk.yaml", "id: tool.risk\nkind: risk\n");
        let config = Config::open(dir.path()).unwrap();
        assert!(!config.reload_if_changed());
        write(dir.path(), "capabilities/echo.yaml", "id: note.echo\nkind: echo\n");
        assert!(config.reload_if_changed());
        assert_eq!(config.current().revision, 2);
        assert_eq!(config.current().capabilities.len(), 2);
        assert!(Config::open(&dir.path().join("missing")).is_err());
    }
}
