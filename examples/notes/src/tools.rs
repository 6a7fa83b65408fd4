//! The notes tools: each `#[tool]` is an MCP tool and a REST route.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooltable::{Cx, tool};

use crate::catalog::announce_change;
use crate::error::NoteError;
use crate::notebook::{Note, Notebook};

/// A new note's fields; `tags` may be left out.
#[derive(Deserialize, JsonSchema)]
pub struct NewNote {
    /// Unique among the notes, 1 to 200 characters.
    pub title: String,
    pub text: String,
    #[serde(default)]
    pub tags: Vec<String>,
}

/// Creates a note and returns it with its id.
#[tool(title = "Create note", destructive = false, rest = "POST /notes", status = 201, scopes = ["notes:write"])]
pub async fn create_note(cx: &Cx<Notebook>, args: NewNote) -> Result<Note, NoteError> {
    let note = cx.state().add(args.title, args.text, args.tags)?;
    announce_change(cx, note.note_id);
    Ok(note)
}

/// Which notes `list_notes` returns; over REST these are query parameters.
#[derive(Deserialize, JsonSchema)]
pub struct NoteFilter {
    /// Only the notes with this tag.
    pub tag: Option<String>,
    /// At most this many notes, the lowest ids first.
    pub limit: Option<usize>,
}

/// The notes a filter selects.
#[derive(Serialize, JsonSchema)]
pub struct NoteList {
    pub notes: Vec<Note>,
}

/// Lists the notes, optionally those with one tag, lowest ids first.
#[tool(title = "List notes", read_only, idempotent, rest = "GET /notes", scopes = ["notes:read"])]
pub async fn list_notes(cx: &Cx<Notebook>, args: NoteFilter) -> Result<NoteList, NoteError> {
    let notes = cx.state().lock();
    let tagged = notes.values().filter(|n| args.tag.as_ref().is_none_or(|t| n.tags.contains(t)));
    Ok(NoteList { notes: tagged.take(args.limit.unwrap_or(usize::MAX)).cloned().collect() })
}

/// Names one note. The Rust field is `note_id`; clients see `noteId`, in the arguments and in the
/// REST path alike.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoteRef {
    /// The id `create_note` returned.
    pub note_id: u64,
}

/// One note by its id.
#[tool(title = "Get note", read_only, idempotent, rest = "GET /notes/{note_id}", scopes = ["notes:read"])]
pub async fn get_note(cx: &Cx<Notebook>, args: NoteRef) -> Result<Note, NoteError> {
    cx.state().get(args.note_id)
}

/// A note's new text; over REST the request body is the text itself, a JSON string.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewText {
    pub note_id: u64,
    pub text: String,
}

/// Replaces a note's text and returns the note.
#[tool(
    title = "Set note text",
    idempotent,
    rest = "PUT /notes/{note_id}/text",
    body = "text",
    scopes = ["notes:write"]
)]
pub async fn set_note_text(cx: &Cx<Notebook>, args: NewText) -> Result<Note, NoteError> {
    let note = {
        let mut notes = cx.state().lock();
        let note = notes.get_mut(&args.note_id).ok_or(NoteError::no_such_note(args.note_id))?;
        note.text = args.text;
        note.clone()
    };
    announce_change(cx, note.note_id);
    Ok(note)
}

/// Deletes a note and returns what it held.
#[tool(title = "Delete note", rest = "DELETE /notes/{note_id}", scopes = ["notes:write"])]
pub async fn delete_note(cx: &Cx<Notebook>, args: NoteRef) -> Result<Note, NoteError> {
    let note = cx.state().lock().remove(&args.note_id).ok_or(NoteError::no_such_note(args.note_id))?;
    announce_change(cx, note.note_id);
    Ok(note)
}
