//! Taking or dropping pending files (see [`pending`]). Accepting a session also
//! rewrites the regions made from sessions in the docs pages its folder's `golden.json` names
//! (and in their pending pages), so that after `golden accept` the tests pass with no other step.
//!
//! ```
//! use tooltable_golden::pending;
//! use tooltable_golden::review::accept;
//!
//! let dir = std::env::temp_dir().join(format!("golden-doc-review-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
//! let session = dir.join("ping.session");
//! std::fs::write(&session, "# recorded before\n").map_err(|e| e.to_string())?;
//! let new = pending::write(&session, "# what came back this time\n")?;
//!
//! let accepted = accept(&new)?;
//! assert_eq!(accepted.file, session);
//! assert_eq!(std::fs::read_to_string(&session).map_err(|e| e.to_string())?, "# what came back this time\n");
//! assert!(!new.exists() && accepted.pages.is_empty(), "no golden.json names a page");
//! # std::fs::remove_dir_all(&dir).map_err(|e| e.to_string())?;
//! # Ok::<(), String>(())
//! ```

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::docs;
use crate::pending;
use crate::session::SessionFile;

/// What accepting one pending file changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    /// The file it replaced.
    pub file: PathBuf,
    /// The docs pages (or pending pages) rewritten from the folder's sessions.
    pub pages: Vec<PathBuf>,
}

/// Replaces the file `pending` checked by it, and brings the folder's docs up to date.
pub fn accept(pending: &Path) -> Result<Accepted, String> {
    let file = checked(pending)?;
    std::fs::rename(pending, &file).map_err(|e| format!("{}: {e}", pending.display()))?;
    let pages = match file.extension().is_some_and(|e| e == "session") {
        true => refresh_docs(pending::folder_of(&file))?,
        false => Vec::new(),
    };
    Ok(Accepted { file, pages })
}

/// Removes a pending file.
pub fn reject(pending: &Path) -> Result<(), String> {
    checked(pending)?;
    std::fs::remove_file(pending).map_err(|e| format!("{}: {e}", pending.display()))
}

/// A unified diff from the file `pending` checked to it.
pub fn diff(pending: &Path) -> Result<String, String> {
    let file = checked(pending)?;
    let read = |p: &Path| match std::fs::read_to_string(p) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && p == file => Ok(String::new()),
        Err(e) => Err(format!("{}: {e}", p.display())),
    };
    let (old, new) = (read(&file)?, read(pending)?);
    let diff = similar::TextDiff::from_lines(&old, &new);
    let (old_name, new_name) = (file.display().to_string(), pending.display().to_string());
    Ok(diff.unified_diff().context_radius(3).header(&old_name, &new_name).to_string())
}

fn checked(pending: &Path) -> Result<PathBuf, String> {
    pending::checked_of(pending)
        .ok_or_else(|| format!("{}: not a pending file (NAME.session.new or NAME.md.new)", pending.display()))
}

/// Rewrites the regions made from sessions in the pages `dir`'s `golden.json` names, and in their
/// pending pages; returns those it changed.
pub fn refresh_docs(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let config = Config::load(dir)?;
    let session = |name: &str| SessionFile::load(&dir.join(format!("{name}.session")));
    let mut changed = Vec::new();
    for page in &config.docs {
        for path in [page.clone(), pending::pending_of(page)] {
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let fresh = docs::refresh_from_sessions(&text, &config.routes, &session)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            if fresh != text {
                std::fs::write(&path, fresh).map_err(|e| format!("{}: {e}", path.display()))?;
                changed.push(path);
            }
        }
    }
    Ok(changed)
}

/// How a review went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reviewed {
    /// The files replaced by their pending ones.
    pub accepted: Vec<PathBuf>,
    /// The pending files removed.
    pub rejected: Vec<PathBuf>,
    /// The pending files left for later.
    pub skipped: Vec<PathBuf>,
}

/// Shows each pending file's diff on `output` and asks: `a` accepts it, `r` rejects it, `s` (or
/// an empty line) skips it, `q` (or the end of `input`) skips it and every one after.
pub fn review(pendings: &[PathBuf], input: &mut dyn BufRead, output: &mut dyn Write) -> Result<Reviewed, String> {
    let io = |e: std::io::Error| format!("the terminal: {e}");
    let mut reviewed = Reviewed::default();
    let mut quit = false;
    for (i, path) in pendings.iter().enumerate() {
        if quit {
            reviewed.skipped.push(path.clone());
            continue;
        }
        write!(
            output,
            "{}\n({}/{}) {}: [a]ccept, [r]eject, [s]kip, [q]uit? ",
            diff(path)?,
            i + 1,
            pendings.len(),
            path.display()
        )
        .map_err(io)?;
        output.flush().map_err(io)?;
        let mut answer = String::new();
        let read = input.read_line(&mut answer).map_err(io)?;
        match answer.trim() {
            _ if read == 0 => {
                writeln!(output).map_err(io)?;
                quit = true;
                reviewed.skipped.push(path.clone());
            }
            "a" | "accept" => {
                let accepted = accept(path)?;
                for page in &accepted.pages {
                    writeln!(output, "  {} brought up to date", page.display()).map_err(io)?;
                }
                reviewed.accepted.push(accepted.file);
            }
            "r" | "reject" => {
                reject(path)?;
                reviewed.rejected.push(path.clone());
            }
            "q" | "quit" => {
                quit = true;
                reviewed.skipped.push(path.clone());
            }
            _ => reviewed.skipped.push(path.clone()),
        }
    }
    Ok(reviewed)
}
