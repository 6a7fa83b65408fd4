//! An entity repository served as MCP tools: entity definitions (`entities/<Name>.yaml`) and the
//! YAML or JSON record files their includes match, read-only, behind an entity allow-list.

pub mod repository;
pub mod tools;

use std::path::PathBuf;

use tooltable::{Server, table};

use repository::{Limits, Repository};
use tools::service::Service;
use tools::{entities, export, files, objects};

/// The default of `--max-client-diagnostics`: enough to name a few broken files, few enough
/// that a repository of ten thousand named pipes does not flood the client.
const CLIENT_DIAGNOSTICS: usize = 20;

/// The server's own command-line options.
#[derive(clap::Args, Debug, Clone)]
pub struct Options {
    /// The workspace root: the folder holding `entities/` and the record files. A relative path
    /// is resolved from the working directory; host configurations should give an absolute one.
    #[arg(long, global = true, default_value = ".")]
    pub root: PathBuf,
    /// Expose only these entities (exact names, comma-separated); every entity when omitted.
    /// Allowing a parent does not allow its descendants.
    #[arg(long, global = true, value_delimiter = ',')]
    pub allow: Option<Vec<String>>,
    /// The largest file read (definition, record file, JSON Schema), in bytes.
    #[arg(long, global = true, default_value_t = Limits::default().max_file_bytes)]
    pub max_file_bytes: u64,
    /// The deepest nesting of lists and mappings a file may have, checked before it is parsed.
    #[arg(long, global = true, default_value_t = Limits::default().max_depth)]
    pub max_depth: usize,
    /// The most diagnostics (files skipped or served in an earlier version) one call sends to
    /// the client as log messages; the server's log (stderr) has them all.
    #[arg(long, global = true, default_value_t = CLIENT_DIAGNOSTICS)]
    pub max_client_diagnostics: usize,
}

impl Options {
    /// Options for the repository at `root` with every other setting at its default.
    pub fn at(root: impl Into<PathBuf>) -> Options {
        let limits = Limits::default();
        Options {
            root: root.into(),
            allow: None,
            max_file_bytes: limits.max_file_bytes,
            max_depth: limits.max_depth,
            max_client_diagnostics: CLIENT_DIAGNOSTICS,
        }
    }

    fn limits(&self) -> Limits {
        Limits { max_file_bytes: self.max_file_bytes, max_depth: self.max_depth }
    }
}

const INSTRUCTIONS: &str = "A read-only entity repository. entity_list names the entities; \
entity_show gives one's schema; object_list and object_get read its records (by exact entity and \
identifier); repository_export returns the fields of many entities at once; files_list names the \
backing files. Entity names are exact and case-sensitive.";

pub fn server(options: Options) -> Result<Server<Service>, Box<dyn std::error::Error>> {
    let repository = Repository::open(&options.root, options.limits())?;
    Ok(Server::builder(Service::new(repository, options.allow, options.max_client_diagnostics))
        .info(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions(INSTRUCTIONS)
        .tools(table![
            entities::entity_list,
            entities::entity_show,
            objects::object_list,
            objects::object_get,
            export::repository_export,
            files::files_list,
        ])
        .build()?)
}
