//! A notes server: the tools create, list, read, edit and delete notes kept in memory; a
//! resource, a resource template, a prompt and completion show the rest of what a server offers.

mod catalog;
mod error;
mod notebook;
mod tools;

pub use error::NoteError;
pub use notebook::{MAX_NOTES, MAX_TITLE_CHARS, Note, Notebook};

use tooltable::tool::TableError;
use tooltable::{Server, table};

/// The whole server, with an empty notebook.
pub fn server() -> Result<Server<Notebook>, TableError> {
    let builder = Server::builder(Notebook::default())
        .info(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions("Notes kept in memory while the server runs: create, list, read, edit and delete them.")
        .tools(table![
            tools::create_note,
            tools::list_notes,
            tools::get_note,
            tools::set_note_text,
            tools::delete_note,
        ]);
    catalog::register(builder).build()
}
