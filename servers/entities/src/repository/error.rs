//! Why part of the repository cannot be read (the file at fault and the reason), and the
//! diagnostics of a read that went on: a file skipped, or served in an earlier version.

use std::fmt;

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// Workspace-relative; empty when no one file is at fault.
    pub file: String,
    pub reason: String,
}

impl LoadError {
    pub fn new(file: impl Into<String>, reason: impl Into<String>) -> LoadError {
        LoadError { file: file.into(), reason: reason.into() }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file.is_empty() { f.write_str(&self.reason) } else { write!(f, "{}: {}", self.file, self.reason) }
    }
}

/// Something a person should know about a read that succeeded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Workspace-relative.
    pub file: String,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}
