//! A repository in a temporary folder and in-process tool calls against it.

use std::path::Path;

use serde_json::Value;
use tooltable::Server;

use entities::tools::service::Service;

pub struct TempRepo {
    pub dir: tempfile::TempDir,
}

impl TempRepo {
    /// An empty repository: the `entities/` folder and nothing else.
    pub fn new() -> TempRepo {
        let dir = tempfile::tempdir().expect("a temporary folder");
        std::fs::create_dir(dir.path().join("entities")).expect("entities/");
        TempRepo { dir }
    }

    /// Writes a file (its folders created) under the root.
    pub fn write(&self, relative: &str, contents: impl AsRef<[u8]>) -> &TempRepo {
        let path = self.dir.path().join(relative);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
        std::fs::write(path, contents).expect("written");
        self
    }

    pub fn remove(&self, relative: &str) {
        std::fs::remove_file(self.dir.path().join(relative)).expect("removed");
    }

    pub fn server(&self) -> Server<Service> {
        server_at(self.dir.path(), None)
    }

    pub fn server_allowing(&self, allow: &[&str]) -> Server<Service> {
        server_at(self.dir.path(), Some(allow))
    }
}

pub fn server_at(root: &Path, allow: Option<&[&str]>) -> Server<Service> {
    let options =
        entities::Options { root: root.to_owned(), allow: allow.map(|a| a.iter().map(|s| s.to_string()).collect()) };
    entities::server(options).expect("the server builds")
}

/// One tool call in process: the result, or the error body.
pub fn call(server: &Server<Service>, tool: &str, args: Value) -> Result<Value, Value> {
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    runtime.block_on(server.call(tool, args)).map_err(|failure| failure.body)
}

/// The `error` code of a failed call.
pub fn error_code(server: &Server<Service>, tool: &str, args: Value) -> String {
    match call(server, tool, args) {
        Ok(v) => panic!("{tool} succeeded: {v}"),
        Err(body) => body["error"].as_str().unwrap_or_default().to_owned(),
    }
}

/// A definition with an `id` string field and `name`, including `data/<folder>/*.yaml`.
pub fn simple_definition(folder: &str) -> String {
    format!(
        "Fields:\n  id:\n    Type: string\n    Required: true\n  name:\n    Type: string\nInclude:\n  - data/{folder}/*.yaml\n"
    )
}

/// The ids `object_list` gives for an entity.
pub fn ids(server: &Server<Service>, entity: &str) -> Vec<String> {
    let list = call(server, "object_list", serde_json::json!({ "entity": entity })).expect("object_list");
    list["objects"].as_array().unwrap().iter().map(|o| o["id"].as_str().unwrap().to_owned()).collect()
}
