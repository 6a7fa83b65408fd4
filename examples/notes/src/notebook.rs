//! The server's state: the notes, kept in memory for as long as the process runs.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::NoteError;

/// The most notes a notebook holds; `create_note` fails with `notebook_full` beyond it.
pub const MAX_NOTES: usize = 1_000;
/// The longest title, in characters.
pub const MAX_TITLE_CHARS: usize = 200;

/// One note.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Note {
    /// The id the server gave the note.
    pub note_id: u64,
    pub title: String,
    pub text: String,
    pub tags: Vec<String>,
}

/// Every note by id, behind a lock: calls run concurrently.
#[derive(Default)]
pub struct Notebook {
    notes: Mutex<BTreeMap<u64, Note>>,
}

impl Notebook {
    /// The notes; a panic in another call while it held the lock loses nothing here.
    pub fn lock(&self) -> MutexGuard<'_, BTreeMap<u64, Note>> {
        self.notes.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Adds a note under the next free id, refusing an invalid or taken title.
    pub fn add(&self, title: String, text: String, tags: Vec<String>) -> Result<Note, NoteError> {
        check_title(&title)?;
        let mut notes = self.lock();
        if notes.len() >= MAX_NOTES {
            return Err(NoteError::notebook_full());
        }
        if notes.values().any(|n| n.title == title) {
            return Err(NoteError::title_taken(title));
        }
        let note_id = notes.last_key_value().map_or(1, |(id, _)| id + 1);
        let note = Note { note_id, title, text, tags };
        notes.insert(note_id, note.clone());
        Ok(note)
    }

    /// A copy of one note.
    pub fn get(&self, note_id: u64) -> Result<Note, NoteError> {
        self.lock().get(&note_id).cloned().ok_or(NoteError::no_such_note(note_id))
    }
}

fn check_title(title: &str) -> Result<(), NoteError> {
    if title.trim().is_empty() {
        return Err(NoteError::invalid_title("the title is empty"));
    }
    let chars = title.chars().count();
    if chars > MAX_TITLE_CHARS {
        return Err(NoteError::invalid_title(format!(
            "the title has {chars} characters; at most {MAX_TITLE_CHARS} are allowed"
        )));
    }
    Ok(())
}
