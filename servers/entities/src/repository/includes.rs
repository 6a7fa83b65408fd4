//! Expanding an include glob to the files it matches now. The walk starts at the glob's literal
//! prefix (checked to stay inside the roots), does not descend symlinked directories, and every
//! match is resolved and checked again before it is read. A match that is no regular file (a
//! named pipe, a socket, a device, a folder through a symlink) is skipped, never opened.

use std::path::{Path, PathBuf};

use globset::GlobBuilder;
use walkdir::WalkDir;

use super::error::LoadError;
use super::reader::Reader;
use super::roots::Roots;
use super::source;

/// A file an include matched: its workspace-relative path and its canonical path.
#[derive(Debug, Clone)]
pub struct Matched {
    pub relative: String,
    pub real: PathBuf,
}

/// The files `pattern` (of the definition `definition`) matches, sorted by path. Every directory
/// walked is noted by the reader so that a change there is noticed.
pub fn expand(roots: &Roots, definition: &str, pattern: &str, reader: &mut Reader) -> Result<Vec<Matched>, LoadError> {
    let fail = |reason: String| LoadError::new(definition, format!("include {pattern:?}: {reason}"));
    roots.check_relative(pattern).map_err(fail)?;
    let glob = GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| fail(format!("not a valid glob: {e}")))?
        .compile_matcher();
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
    let literal =
        parts.iter().take_while(|p| !p.contains(['*', '?', '[', '{'])).count().min(parts.len().saturating_sub(1));
    let base_relative = parts[..literal].join("/");
    let base = roots.absolute(&base_relative);
    if !base.is_dir() {
        watch_nearest_existing(&base, roots, reader);
        return Ok(Vec::new());
    }
    let real_base = roots.confine(&base).map_err(fail)?;
    let mut walk = WalkDir::new(&base).follow_links(false).sort_by_file_name();
    if !pattern.contains("**") {
        walk = walk.max_depth(parts.len() - literal);
    }
    let mut matched = Vec::new();
    for entry in walk {
        let entry = entry.map_err(|e| fail(e.to_string()))?;
        if entry.file_type().is_dir() {
            reader.dirs.insert(entry.path().to_owned());
            continue;
        }
        let Some(relative) = relative_to(&base_relative, &base, entry.path()) else { continue };
        if !glob.is_match(&relative) {
            continue;
        }
        let (real, kind) = if entry.path_is_symlink() {
            let real = roots.confine(entry.path()).map_err(|reason| LoadError::new(&relative, reason))?;
            let metadata = std::fs::metadata(&real).map_err(|e| LoadError::new(&relative, e.to_string()))?;
            (real, metadata.file_type())
        } else {
            // Reached from the resolved base without passing a symlink: no need to resolve it
            // again (which costs a system call a path component).
            let Ok(rest) = entry.path().strip_prefix(&base) else { continue };
            (real_base.join(rest), entry.file_type())
        };
        if kind.is_file() {
            matched.push(Matched { relative, real });
        } else {
            reader.skip(&relative, source::not_regular(kind));
        }
    }
    Ok(matched)
}

/// `path` (under `base`) as a workspace-relative path with `/` separators.
fn relative_to(base_relative: &str, base: &Path, path: &Path) -> Option<String> {
    let rest: Vec<&str> =
        path.strip_prefix(base).ok()?.components().map(|c| c.as_os_str().to_str()).collect::<Option<_>>()?;
    let mut parts: Vec<&str> = Vec::new();
    if !base_relative.is_empty() {
        parts.push(base_relative);
    }
    parts.extend(rest);
    Some(parts.join("/"))
}

/// A directory that does not exist yet is noticed when it appears.
fn watch_nearest_existing(missing: &Path, roots: &Roots, reader: &mut Reader) {
    if let Some(existing) = missing.ancestors().find(|a| a.is_dir())
        && roots.confine(existing).is_ok()
    {
        reader.dirs.insert(existing.to_owned());
    }
}
