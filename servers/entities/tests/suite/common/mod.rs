//! A repository in a temporary folder and in-process tool calls against it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tooltable::Server;

use entities::repository::Snapshot;
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

    /// User and Post (`simple_definition`), with the records `a` and `p`.
    pub fn users_and_posts() -> TempRepo {
        let repo = TempRepo::new();
        repo.write("entities/User.yaml", simple_definition("users"))
            .write("entities/Post.yaml", simple_definition("posts"))
            .write("data/users/a.yaml", "id: a\n")
            .write("data/posts/p.yaml", "id: p\n");
        repo
    }

    /// Writes a file (its folders created) under the root.
    pub fn write(&self, relative: &str, contents: impl AsRef<[u8]>) -> &TempRepo {
        let path = self.dir.path().join(relative);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
        std::fs::write(path, contents).expect("written");
        self
    }

    /// The absolute path of a file under the root.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// Makes a named pipe (its folders created) under the root.
    pub fn fifo(&self, relative: &str) -> &TempRepo {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
        let made = std::process::Command::new("mkfifo").arg(&path).status().expect("mkfifo runs");
        assert!(made.success(), "mkfifo {}", path.display());
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
    let options = entities::Options {
        allow: allow.map(|a| a.iter().map(|s| s.to_string()).collect()),
        ..entities::Options::at(root)
    };
    entities::server(options).expect("the server builds")
}

/// A server whose options differ from the defaults as `change` says.
pub fn server_with(root: &Path, change: impl FnOnce(&mut entities::Options)) -> Server<Service> {
    let mut options = entities::Options::at(root);
    change(&mut options);
    entities::server(options).expect("the server builds")
}

fn block_on<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().build().expect("a runtime").block_on(future)
}

/// The repository as the server's next call sees it.
pub fn snapshot(server: &Server<Service>) -> Arc<Snapshot> {
    block_on(server.state().repository.snapshot()).expect("the repository reads").snapshot
}

/// The diagnostics of the repository as the server's next call sees it, as text.
pub fn diagnostics(server: &Server<Service>) -> Vec<String> {
    snapshot(server).diagnostics.iter().map(ToString::to_string).collect()
}

/// One tool call in process: the result, or the error body.
pub fn call(server: &Server<Service>, tool: &str, args: Value) -> Result<Value, Value> {
    block_on(server.call(tool, args)).map_err(|failure| failure.body)
}

/// One GET over a fresh connection: the status and the JSON body.
pub async fn http_get(base: &str, path: &str) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connected");
    // HTTP/1.0: the body comes whole, not chunked, and the connection closes after it.
    let request = format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("sent");
    let mut response = String::new();
    stream.read_to_string(&mut response).await.expect("read");
    let (head, body) = response.split_once("\r\n\r\n").expect("a head and a body");
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status");
    (status, serde_json::from_str(body).expect("a JSON body"))
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

/// Runs `f` on a thread of its own and fails if it has not finished within a minute: a hang
/// is a failed test, not a stuck test run.
pub fn without_hanging<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60)).expect("finished instead of hanging")
}
