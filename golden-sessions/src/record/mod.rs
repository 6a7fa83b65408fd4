//! Recording a session from a real host: `golden record` stands where the server would, relays
//! every message both ways unchanged ([`stdio`] as the host's stdio server, [`http`] as a reverse
//! proxy in front of a Streamable HTTP server), and writes the exchange as it happens. What it
//! writes has secrets redacted, `<TIMESTAMP>` and the folder's patterns in what the server sent,
//! and the opaque values of [`tokens`](crate::tokens) as placeholders, so the file replays as it
//! is. A client of revision 2026-07-28 (no `initialize`) is recorded as it talks.
//!
//! ```
//! use serde_json::json;
//! use tooltable_golden::placeholders::Placeholders;
//! use tooltable_golden::record::Recorder;
//! use tooltable_golden::session::{Line, SessionFile};
//!
//! let path = std::env::temp_dir().join(format!("golden-doc-record-{}.session", std::process::id()));
//! let recorder = Recorder::create(&path, Placeholders::standard(), "stdio")?;
//! recorder.message(&json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" }), true)?;
//! let answer = json!({ "jsonrpc": "2.0", "id": 1, "result": { "tools": [], "nextCursor": "c-81f2" } });
//! recorder.message(&answer, false)?;
//!
//! let written = SessionFile::parse(&std::fs::read_to_string(&path).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
//! let received: Vec<_> = written.lines.iter().filter_map(|(_, line)| match line { Line::Received(v) => Some(v), _ => None }).collect();
//! assert_eq!(received[0]["result"]["nextCursor"], "<CURSOR_1>", "an opaque value, as its placeholder");
//! # std::fs::remove_file(&path).map_err(|e| e.to_string())?;
//! # Ok::<(), String>(())
//! ```

pub mod http;
pub mod stdio;

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::placeholders::Placeholders;
use crate::session::{Line, SessionFile};
use crate::tokens::Tokens;

/// The longest a line that is not JSON is kept, as a comment.
const NOT_JSON_CHARS: usize = 200;

/// A session file being written, one message at a time; clones write to the same file.
#[derive(Clone)]
pub struct Recorder {
    inner: Arc<Mutex<Inner>>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("Recorder")
            .field("path", &inner.path)
            .field("transport", &inner.transport)
            .finish_non_exhaustive()
    }
}

struct Inner {
    path: PathBuf,
    out: File,
    placeholders: Placeholders,
    tokens: Tokens,
    transport: &'static str,
    started: bool,
}

impl Recorder {
    /// Starts the session file at `path` (replacing one there), for messages over `transport`
    /// (`stdio`, `HTTP`), normalized with `placeholders`.
    pub fn create(path: &Path, placeholders: Placeholders, transport: &'static str) -> Result<Self, String> {
        let out = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let inner =
            Inner { path: path.to_owned(), out, placeholders, tokens: Tokens::default(), transport, started: false };
        Ok(Recorder { inner: Arc::new(Mutex::new(inner)) })
    }

    /// A credential seen outside the messages (an HTTP header), never to be written.
    pub fn secret(&self, value: &str) {
        self.lock().placeholders.secrets_mut().add(value);
    }

    /// A line the client sent.
    pub fn sent(&self, line: &[u8]) -> Result<(), String> {
        self.line(Some(line), true)
    }

    /// A line the server sent.
    pub fn received(&self, line: &[u8]) -> Result<(), String> {
        self.line(Some(line), false)
    }

    /// A line the client (`sent`) or the server sent; `None` for one too long to keep, which is
    /// noted as a comment.
    pub fn line(&self, line: Option<&[u8]>, sent: bool) -> Result<(), String> {
        let who = if sent { "the client" } else { "the server" };
        let Some(line) = line else {
            return self.lock().write(&Line::Text(format!("# a line from {who} too long to record")));
        };
        let text = String::from_utf8_lossy(line);
        if text.trim().is_empty() {
            return Ok(());
        }
        match serde_json::from_str::<Value>(text.trim()) {
            Ok(msg) => self.message(&msg, sent),
            Err(_) => {
                let mut inner = self.lock();
                let shown: String = text.trim().chars().take(NOT_JSON_CHARS).collect();
                let redacted = inner.placeholders.normalize_sent(&Value::String(shown));
                inner.write(&Line::Text(format!("# not JSON, from {who}: {}", redacted.as_str().unwrap_or_default())))
            }
        }
    }

    /// A message the client (`sent`) or the server sent.
    pub fn message(&self, msg: &Value, sent: bool) -> Result<(), String> {
        let mut inner = self.lock();
        let line = if sent {
            let msg = inner.placeholders.normalize_sent(msg);
            Line::Sent(inner.tokens.sent(&msg))
        } else {
            let msg = inner.placeholders.normalize(msg);
            Line::Received(inner.tokens.received(&msg))
        };
        if !inner.started {
            inner.started = true;
            let header = Line::Text(header(msg, inner.transport));
            inner.write(&header)?;
        }
        inner.write(&line)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Inner {
    fn write(&mut self, line: &Line) -> Result<(), String> {
        let text = SessionFile::render(std::slice::from_ref(line));
        // Written whole and flushed as it comes: a host that kills the recorder loses nothing.
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }
}

/// The comment that opens a recording: which client, over what, in which revision.
fn header(first: &Value, transport: &str) -> String {
    let params = &first["params"];
    let meta = &params["_meta"];
    let client = params.get("clientInfo").or_else(|| meta.get("io.modelcontextprotocol/clientInfo"));
    let revision = params.get("protocolVersion").or_else(|| meta.get("io.modelcontextprotocol/protocolVersion"));
    let mut text = String::from("# Recorded by golden record");
    if let Some(client) = client {
        let name = client["name"].as_str().unwrap_or("a client");
        let version = client["version"].as_str().map(|v| format!(" {v}")).unwrap_or_default();
        text.push_str(&format!(" from {name}{version}"));
    }
    text.push_str(&format!(" over {transport}"));
    if let Some(revision) = revision.and_then(Value::as_str) {
        text.push_str(&format!(", revision {revision}"));
    }
    text.push('.');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_what_it_is_given_normalized_with_a_header() {
        let path = std::env::temp_dir().join(format!("golden-recorder-{}.session", std::process::id()));
        let mut placeholders = Placeholders::standard().literal("ROOT", "/srv/x");
        placeholders.secrets_mut().add("sk-0123456789");
        let recorder = Recorder::create(&path, placeholders, "stdio").unwrap();
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "clientInfo": {"name": "host", "version": "2"}, "capabilities": {}}});
        recorder.sent(init.to_string().as_bytes()).unwrap();
        recorder.received(br#"{"id":1,"result":{"at":"2026-01-02T03:04:05Z","root":"/srv/x/a","key":"sk-0123456789","nextCursor":"c1"}}"#).unwrap();
        recorder.sent(br#"{"id":2,"method":"tools/list","params":{"cursor":"c1","path":"/srv/x/b"}}"#).unwrap();
        recorder.received(b"garbage\n").unwrap();
        let file = SessionFile::load(&path).unwrap();
        let lines: Vec<Line> = file.lines.into_iter().map(|(_, l)| l).collect();
        assert_eq!(
            lines,
            [
                Line::Text("# Recorded by golden record from host 2 over stdio, revision 2025-11-25.".into()),
                Line::Sent(init),
                Line::Received(
                    json!({"id": 1, "result": {"at": "<TIMESTAMP>", "root": "<ROOT>/a", "key": "<REDACTED>", "nextCursor": "<CURSOR_1>"}})
                ),
                Line::Sent(
                    json!({"id": 2, "method": "tools/list", "params": {"cursor": "<CURSOR_1>", "path": "<ROOT>/b"}})
                ),
                Line::Text("# not JSON, from the server: garbage".into()),
            ]
        );
        std::fs::remove_file(&path).unwrap();
    }
}
