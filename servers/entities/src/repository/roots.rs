//! The places the repository may read: the workspace root and the external roots its
//! `repository.yaml` configures. Workspace-relative paths are written with `/`; those of external
//! roots begin with `../`. Every path is checked lexically first and, once resolved through
//! symlinks, again: nothing outside these places is read.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use super::reader::Reader;

/// The optional configuration file at the workspace root.
const CONFIG_FILE: &str = "repository.yaml";

#[derive(Debug, Clone)]
pub struct Roots {
    /// The workspace root, canonical.
    root: PathBuf,
    external: Vec<ExternalRoot>,
}

#[derive(Debug, Clone)]
struct ExternalRoot {
    /// As configured, e.g. `../common`, without a trailing `/`.
    prefix: String,
    /// Canonical.
    dir: PathBuf,
}

/// `repository.yaml` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
pub struct Config {
    #[serde(default)]
    external_roots: Vec<String>,
}

impl Roots {
    /// Reads `repository.yaml` (when there is one) under the canonical `root`.
    pub fn load(root: &Path, reader: &mut Reader) -> Result<Roots, String> {
        let mut roots = Roots { root: root.to_owned(), external: Vec::new() };
        let config_path = root.join(CONFIG_FILE);
        let config = match std::fs::symlink_metadata(&config_path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Arc::new(Config::default()),
            _ => {
                let real = roots.confine(&config_path).map_err(|e| format!("{CONFIG_FILE}: {e}"))?;
                reader.config(&real, CONFIG_FILE).map_err(|e| format!("{CONFIG_FILE}: {e}"))?
            }
        };
        roots.external = config
            .external_roots
            .iter()
            .map(|entry| {
                external_root(root, entry).map_err(|why| format!("{CONFIG_FILE}: the external root {entry:?} {why}"))
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(roots)
    }

    /// Checks a workspace-relative path or glob lexically: relative, no `..` except the leading
    /// ones of a configured external root.
    pub fn check_relative(&self, path: &str) -> Result<(), String> {
        if Path::new(path).has_root() || path.starts_with('/') || path.starts_with('\\') {
            return Err(format!("{path:?} is absolute; paths are relative to the workspace root"));
        }
        let inside = self.external.iter().find_map(|e| path.strip_prefix(&e.prefix)?.strip_prefix('/')).unwrap_or(path);
        if Path::new(inside).components().any(|c| matches!(c, Component::ParentDir | Component::Prefix(_))) {
            return Err(format!("{path:?} leaves the workspace root and no configured external root holds it"));
        }
        Ok(())
    }

    /// Resolves symlinks and checks that `path` lands inside the root or an external root;
    /// gives the canonical path.
    pub fn confine(&self, path: &Path) -> Result<PathBuf, String> {
        let real = path.canonicalize().map_err(|e| e.to_string())?;
        if real.starts_with(&self.root) || self.external.iter().any(|e| real.starts_with(&e.dir)) {
            Ok(real)
        } else {
            Err("it resolves (through a symlink) to a place outside the workspace root".to_owned())
        }
    }

    /// The absolute form of a workspace-relative path, `..` resolved lexically.
    pub fn absolute(&self, relative: &str) -> PathBuf {
        let mut out = self.root.clone();
        for component in Path::new(relative).components() {
            match component {
                Component::ParentDir => {
                    out.pop();
                }
                Component::Normal(part) => out.push(part),
                _ => {}
            }
        }
        out
    }
}

/// Whether a workspace-relative path lies under an external root.
pub fn is_external(relative: &str) -> bool {
    relative.starts_with("../")
}

/// An external root as configured: `../` once, then only down (plain names, no globs), and,
/// resolved through symlinks, a folder inside the one holding the workspace root.
fn external_root(root: &Path, entry: &str) -> Result<ExternalRoot, String> {
    let prefix = entry.trim_end_matches('/');
    let plain = |part: &str| !part.is_empty() && part != "." && part != ".." && !part.contains(GLOB_AND_ESCAPE);
    match prefix.strip_prefix("../") {
        Some(below) if below.split('/').all(plain) => {}
        _ => return Err("must be ../ followed by folder names only (no further .., no glob characters)".to_owned()),
    }
    let dir = root.join(prefix).canonicalize().map_err(|e| format!("cannot be opened: {e}"))?;
    let allowed = root.parent().unwrap_or(root);
    if dir == allowed || !dir.starts_with(allowed) {
        return Err(format!(
            "resolves (through a symlink) to {}, which is not inside {}, the folder holding the workspace root",
            dir.display(),
            allowed.display()
        ));
    }
    if !dir.is_dir() {
        return Err("is not a folder".to_owned());
    }
    Ok(ExternalRoot { prefix: prefix.to_owned(), dir })
}

/// Characters an include would read as a glob (or an escape), so no external root has them.
const GLOB_AND_ESCAPE: [char; 7] = ['*', '?', '[', ']', '{', '}', '\\'];

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(external: &[&str]) -> Roots {
        Roots {
            root: PathBuf::from("/w/repo"),
            external: external
                .iter()
                .map(|p| ExternalRoot { prefix: p.to_string(), dir: PathBuf::from("/w/common") })
                .collect(),
        }
    }

    #[test]
    fn relative_paths_stay_inside() {
        let r = roots(&["../common"]);
        assert!(r.check_relative("data/*.yaml").is_ok());
        assert!(r.check_relative("../common/tags/*.yaml").is_ok());
        assert!(r.check_relative("../../etc/passwd").is_err());
        assert!(r.check_relative("../commonx/a.yaml").is_err());
        assert!(r.check_relative("../common/../../etc/passwd").is_err());
        assert!(r.check_relative("data/../../x").is_err());
        assert!(r.check_relative("/etc/passwd").is_err());
    }

    #[test]
    fn absolute_resolves_parents_lexically() {
        let r = roots(&[]);
        assert_eq!(r.absolute("data/a.yaml"), PathBuf::from("/w/repo/data/a.yaml"));
        assert_eq!(r.absolute("../common/a.yaml"), PathBuf::from("/w/common/a.yaml"));
    }
}
