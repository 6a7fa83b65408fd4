//! Pending files: what a check that failed found, written beside the file it checked as
//! `FILE.new` (`tools.session.new`, `valem.md.new`) for `golden review` and `golden accept`. The
//! repository's `.gitignore` covers them (`*.session.new`, `*.md.new`), and every one written is
//! announced on the test run's standard error with how many are pending in its folder.
//!
//! ```
//! use std::path::Path;
//! use tooltable_golden::pending::{checked_of, clear, find, pending_of, write};
//!
//! assert_eq!(pending_of(Path::new("sessions/tools.session")), Path::new("sessions/tools.session.new"));
//! assert_eq!(checked_of(Path::new("docs/valem.md.new")).as_deref(), Some(Path::new("docs/valem.md")));
//! assert_eq!(checked_of(Path::new("notes.txt")), None);
//!
//! let dir = std::env::temp_dir().join(format!("golden-doc-pending-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
//! let session = dir.join("tools.session");
//! let pending = write(&session, "what came back\n")?;
//! assert_eq!(find(&dir), [pending]);
//! clear(&session);
//! assert!(find(&dir).is_empty());
//! # std::fs::remove_dir_all(&dir).map_err(|e| e.to_string())?;
//! # Ok::<(), String>(())
//! ```

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What a pending file's name adds to the name of the file it would replace.
pub const SUFFIX: &str = ".new";

/// The kinds of file a check writes a pending one for.
pub const CHECKED: [&str; 2] = [".session", ".md"];

/// Folders a search for pending files does not enter.
const SKIPPED: [&str; 3] = ["target", ".git", "node_modules"];

/// The pending file of `checked`.
pub fn pending_of(checked: &Path) -> PathBuf {
    let mut name = checked.as_os_str().to_owned();
    name.push(SUFFIX);
    PathBuf::from(name)
}

/// The file a pending file would replace, when `pending` is one.
pub fn checked_of(pending: &Path) -> Option<PathBuf> {
    let name = pending.to_str()?.strip_suffix(SUFFIX)?;
    CHECKED.iter().any(|ext| name.ends_with(ext)).then(|| PathBuf::from(name))
}

/// Serializes writing and counting, so the last count printed is the whole count.
static WRITING: Mutex<()> = Mutex::new(());

/// Writes `text` as the pending file of `checked`, and says so on standard error.
pub fn write(checked: &Path, text: &str) -> Result<PathBuf, String> {
    let pending = pending_of(checked);
    let _guard = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    std::fs::write(&pending, text).map_err(|e| format!("{}: {e}", pending.display()))?;
    let folder = folder_of(checked);
    let count = find(folder).len();
    // Straight to the process's standard error, past the test harness's capture: the run says it
    // whether or not the test's own output is shown.
    let _ = writeln!(
        std::io::stderr(),
        "golden: {} is pending ({count} pending in {}; `golden review` there shows each)",
        pending.display(),
        folder.display()
    );
    Ok(pending)
}

/// The folder a file is in: `.` for a bare name.
pub fn folder_of(file: &Path) -> &Path {
    file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Removes the pending file of `checked`, if any: the check it came from passes now.
pub fn clear(checked: &Path) {
    let _ = std::fs::remove_file(pending_of(checked));
}

/// Every pending file under `root` (or `root` itself when it is one), sorted.
pub fn find(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if checked_of(root).is_some() && root.is_file() {
        found.push(root.to_owned());
    } else {
        walk(root, &mut found);
    }
    found.sort();
    found
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            if !SKIPPED.iter().any(|s| name == *s) {
                walk(&path, found);
            }
        } else if checked_of(&path).is_some() {
            found.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_finds_pending_files() {
        assert_eq!(pending_of(Path::new("a/b.session")), Path::new("a/b.session.new"));
        assert_eq!(checked_of(Path::new("a/b.session.new")), Some(PathBuf::from("a/b.session")));
        assert_eq!(checked_of(Path::new("a/p.md.new")), Some(PathBuf::from("a/p.md")));
        assert_eq!(checked_of(Path::new("a/b.txt.new")), None);
        assert_eq!(checked_of(Path::new("a/b.session")), None);
        let dir = std::env::temp_dir().join(format!("golden-pending-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("target")).unwrap();
        std::fs::write(dir.join("x.session"), "").unwrap();
        std::fs::write(dir.join("target/y.session.new"), "").unwrap();
        let written = write(&dir.join("x.session"), "→ {}\n").unwrap();
        assert_eq!(find(&dir), std::slice::from_ref(&written));
        assert_eq!(find(&written), std::slice::from_ref(&written));
        clear(&dir.join("x.session"));
        assert!(find(&dir).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
