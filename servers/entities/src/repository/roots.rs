//! The places the repository may read: the workspace root and the external roots its
//! `repository.yaml` configures. Workspace-relative paths are written with `/`; those of external
//! roots begin with `../`. Every path is checked lexically first and, once resolved through
//! symlinks, again: nothing outside these places is read.

use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

use super::source;

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
    /// As configured, e.g. `../shared`, without a trailing `/`.
    prefix: String,
    /// Canonical.
    dir: PathBuf,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct Config {
    #[serde(default)]
    external_roots: Vec<String>,
}

impl Roots {
    /// Reads `repository.yaml` (when there is one) under the canonical `root`.
    pub fn load(root: &Path) -> Result<Roots, String> {
        let config_path = root.join(CONFIG_FILE);
        let config: Config = if config_path.exists() {
            let text = source::read_text(&config_path).map_err(|e| format!("{CONFIG_FILE}: {e}"))?;
            yaml_serde::from_str(&text).map_err(|e| format!("{CONFIG_FILE}: {e}"))?
        } else {
            Config::default()
        };
        let external = config
            .external_roots
            .iter()
            .map(|prefix| {
                let prefix = prefix.trim_end_matches('/').to_owned();
                if !prefix.starts_with("../") || has_parent_after_leading(&prefix) {
                    return Err(format!(
                        "{CONFIG_FILE}: the external root {prefix:?} must begin with ../ and go down from there"
                    ));
                }
                let dir = root
                    .join(&prefix)
                    .canonicalize()
                    .map_err(|e| format!("{CONFIG_FILE}: the external root {prefix:?} cannot be opened: {e}"))?;
                Ok(ExternalRoot { prefix, dir })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Roots { root: root.to_owned(), external })
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

fn has_parent_after_leading(path: &str) -> bool {
    let rest = path.trim_start_matches("../");
    Path::new(rest).components().any(|c| matches!(c, Component::ParentDir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(external: &[&str]) -> Roots {
        Roots {
            root: PathBuf::from("/w/repo"),
            external: external
                .iter()
                .map(|p| ExternalRoot { prefix: p.to_string(), dir: PathBuf::from("/w/shared") })
                .collect(),
        }
    }

    #[test]
    fn relative_paths_stay_inside() {
        let r = roots(&["../shared"]);
        assert!(r.check_relative("data/*.yaml").is_ok());
        assert!(r.check_relative("../shared/tags/*.yaml").is_ok());
        assert!(r.check_relative("../../etc/passwd").is_err());
        assert!(r.check_relative("../sharedx/a.yaml").is_err());
        assert!(r.check_relative("../shared/../../etc/passwd").is_err());
        assert!(r.check_relative("data/../../x").is_err());
        assert!(r.check_relative("/etc/passwd").is_err());
    }

    #[test]
    fn absolute_resolves_parents_lexically() {
        let r = roots(&[]);
        assert_eq!(r.absolute("data/a.yaml"), PathBuf::from("/w/repo/data/a.yaml"));
        assert_eq!(r.absolute("../shared/a.yaml"), PathBuf::from("/w/shared/a.yaml"));
    }
}
