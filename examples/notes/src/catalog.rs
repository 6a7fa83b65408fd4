//! What the server offers besides tools: a resource, a resource template, a prompt, and the
//! completion of the ids they take.

use serde_json::json;
use tooltable::content::{ContentBlock, ResourceContents};
use tooltable::prompts::{Prompt, PromptMessage, PromptResult};
use tooltable::resources::{Resource, ResourceTemplate};
use tooltable::{Cx, Error, ErrorKind, ServerBuilder};

use crate::notebook::Notebook;

/// The URI of the index of every note.
pub const INDEX_URI: &str = "notes://index";
/// The template of one note's URI; `{id}` is the note's id.
pub const NOTE_URI: &str = "notes://note/{id}";

/// Tells the clients subscribed to the index or to the note that it changed.
pub fn announce_change(cx: &Cx<Notebook>, note_id: u64) {
    cx.resource_updated(INDEX_URI);
    cx.resource_updated(&NOTE_URI.replace("{id}", &note_id.to_string()));
}

pub fn register(builder: ServerBuilder<Notebook>) -> ServerBuilder<Notebook> {
    builder
        .resource(
            Resource::new(INDEX_URI, "index").description("Every note's id and title").mime_type("application/json"),
            |cx, req| async move {
                let index: Vec<_> =
                    cx.state().lock().values().map(|n| json!({ "id": n.note_id, "title": n.title })).collect();
                Ok(vec![ResourceContents::text(req.uri, "application/json", json!(index).to_string())])
            },
        )
        .resource_template(
            ResourceTemplate::new(NOTE_URI, "note").description("One note's text").mime_type("text/markdown"),
            |cx, req| async move {
                let note = cx.state().get(note_id(req.params.get("id"))?)?;
                Ok(vec![ResourceContents::text(req.uri, "text/markdown", format!("# {}\n\n{}", note.title, note.text))])
            },
        )
        .prompt(
            Prompt::new("summarize_note").description("Summarizes a note").argument("id", "The note's id", true),
            |cx, args| async move {
                let note = cx.state().get(note_id(args.get("id"))?)?;
                let ask = format!("Summarize this note in one sentence.\n\n# {}\n\n{}", note.title, note.text);
                Ok(PromptResult { description: None, messages: vec![PromptMessage::user(ContentBlock::text(ask))] })
            },
        )
        .completion(|cx, req| async move {
            let takes_an_id = match req.ref_type.as_str() {
                "ref/prompt" => req.ref_name == "summarize_note",
                "ref/resource" => req.ref_name == NOTE_URI,
                other => {
                    return Err(Error::new(ErrorKind::InvalidInput, format!("unknown reference type {other}")));
                }
            };
            if !takes_an_id || req.argument != "id" {
                return Ok(Vec::new());
            }
            let ids = cx.state().lock().keys().map(u64::to_string).filter(|id| id.starts_with(&req.value)).collect();
            Ok(ids)
        })
}

/// A note id given as text, as prompt arguments and URI parameters are.
fn note_id(text: Option<&String>) -> Result<u64, Error> {
    let text = text.map_or("", String::as_str);
    text.parse()
        .map_err(|_| Error::new(ErrorKind::InvalidInput, format!("{text:?} is no note id: ids are whole numbers")))
}
