//! The one error type of the notes tools. It derives `JsonSchema`, so every tool's outputSchema
//! admits its bodies and they reach MCP clients as `structuredContent`.

use schemars::JsonSchema;
use serde::Serialize;
use tooltable::{ErrorBody, ErrorKind};

use crate::notebook::{MAX_NOTES, MAX_TITLE_CHARS};

/// Why a notes tool failed: `error` names the case for a program, `message` explains it to a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum NoteError {
    /// No note has this id.
    NoSuchNote { id: u64, message: String },
    /// Another note has this title already.
    TitleTaken { title: String, message: String },
    /// The title is empty or too long.
    InvalidTitle { message: String },
    /// The notebook holds as many notes as it may.
    NotebookFull { limit: usize, message: String },
}

impl NoteError {
    pub fn no_such_note(id: u64) -> Self {
        NoteError::NoSuchNote { id, message: format!("there is no note {id}; list_notes gives the ids there are") }
    }
    pub fn title_taken(title: String) -> Self {
        let message = format!("another note is titled {title:?}; titles are unique");
        NoteError::TitleTaken { title, message }
    }
    pub fn invalid_title(message: impl Into<String>) -> Self {
        NoteError::InvalidTitle { message: format!("{} (1 to {MAX_TITLE_CHARS} characters)", message.into()) }
    }
    pub fn notebook_full() -> Self {
        let message = format!("the notebook holds {MAX_NOTES} notes, its limit; delete one first");
        NoteError::NotebookFull { limit: MAX_NOTES, message }
    }
}

/// The kind picks the REST status: 404, 409, 422 and 413 here.
impl ErrorBody for NoteError {
    fn kind(&self) -> ErrorKind {
        match self {
            NoteError::NoSuchNote { .. } => ErrorKind::NotFound,
            NoteError::TitleTaken { .. } => ErrorKind::Conflict,
            NoteError::InvalidTitle { .. } => ErrorKind::InvalidInput,
            NoteError::NotebookFull { .. } => ErrorKind::TooLarge,
        }
    }
}
