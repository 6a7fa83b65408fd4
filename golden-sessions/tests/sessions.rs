//! Every committed session reads as a person reads it: it parses, and no line of it is 400
//! characters or longer unless one string value (after its key) makes it so.

use std::path::{Path, PathBuf};

use tooltable_golden::session::SessionFile;

/// The longest line a session holds, but for one long string.
const LONGEST: usize = 400;

fn sessions(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
        let path = entry.path();
        if path.is_dir() {
            sessions(&path, found);
        } else if path.extension().is_some_and(|e| e == "session") {
            found.push(path);
        }
    }
}

/// Whether `line` is an indent, at most one `"key": `, one JSON string and at most a comma.
fn one_string(line: &str) -> bool {
    let body = line.trim_start().trim_end_matches(',');
    let mut tokens = serde_json::Deserializer::from_str(body).into_iter::<String>();
    let Some(Ok(_)) = tokens.next() else { return false };
    let rest = &body[tokens.byte_offset()..];
    match rest.strip_prefix(": ") {
        Some(value) => serde_json::from_str::<String>(value).is_ok(),
        None => rest.is_empty(),
    }
}

#[test]
fn committed_sessions_parse_and_keep_their_lines_short() {
    let mut found = Vec::new();
    sessions(Path::new(env!("CARGO_MANIFEST_DIR")), &mut found);
    assert!(found.len() > 20, "the sessions are found ({})", found.len());
    let mut problems = Vec::new();
    for path in found {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Err(e) = SessionFile::parse(&text) {
            problems.push(format!("{}:{}: {}", path.display(), e.line, e.message));
        }
        for (number, line) in text.lines().enumerate() {
            if line.chars().count() >= LONGEST && !one_string(line) {
                problems.push(format!("{}:{}: {} characters", path.display(), number + 1, line.chars().count()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
