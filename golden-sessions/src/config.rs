//! `golden.json`, beside a folder's sessions: how they are replayed and what is made from them.
//!
//! ```json
//! {
//!   "args": ["--root", "<ROOT>"],
//!   "patterns": {"HASH": "[0-9a-f]{64}"},
//!   "docs": ["../../docs/servers/my-server.md"],
//!   "routes": {"get_note": "GET /notes/{id}"},
//!   "rootComposition": ["fixture_tool"],
//!   "transports": ["stdio"]
//! }
//! ```
//!
//! Every member may be left out, and so may the file. `transports` names those the sessions are
//! replayed over, `stdio` and `http` (both when left out): a server that is a client of another
//! over stdio only, say.
//!
//! ```
//! use tooltable_golden::Transport;
//! use tooltable_golden::config::{Config, FILE};
//!
//! let dir = std::env::temp_dir().join(format!("golden-doc-config-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
//! assert!(Config::load(&dir)?.args.is_empty(), "no golden.json: the defaults");
//! std::fs::write(dir.join(FILE), r#"{"args": ["--root", "examples"], "patterns": {"HASH": "[0-9a-f]{64}"}}"#)
//!     .map_err(|e| e.to_string())?;
//! let config = Config::load(&dir)?;
//! assert_eq!(config.args, ["--root", "examples"]);
//! assert_eq!(config.patterns, [("HASH".to_owned(), "[0-9a-f]{64}".to_owned())]);
//! assert_eq!(config.transports, [Transport::Stdio, Transport::Http], "both when none is named");
//! std::fs::write(dir.join(FILE), r#"{"transports": ["stdio"]}"#).map_err(|e| e.to_string())?;
//! assert_eq!(Config::load(&dir)?.transports, [Transport::Stdio]);
//! std::fs::write(dir.join(FILE), r#"{"transports": ["smoke"]}"#).map_err(|e| e.to_string())?;
//! assert!(Config::load(&dir).unwrap_err().contains("transports: smoke is neither stdio nor http"));
//! std::fs::write(dir.join(FILE), r#"{"transports": []}"#).map_err(|e| e.to_string())?;
//! assert!(Config::load(&dir).unwrap_err().contains("transports: name at least one"));
//! # std::fs::remove_dir_all(&dir).map_err(|e| e.to_string())?;
//! # Ok::<(), String>(())
//! ```

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::harness::Transport;
use crate::placeholders::Placeholders;

/// The file's name.
pub const FILE: &str = "golden.json";

/// What `golden.json` declares.
#[derive(Debug, Clone)]
pub struct Config {
    /// The server's arguments after `mcp` or `serve` (placeholders filled).
    pub args: Vec<String>,
    /// Pattern placeholders, by name: `<HASH>` for every match.
    pub patterns: Vec<(String, String)>,
    /// The docs pages generated from these sessions, relative to the folder.
    pub docs: Vec<PathBuf>,
    /// The route each tool maps to, for the reference table, over what the server's OpenAPI says.
    pub routes: serde_json::Map<String, Value>,
    /// Tools whose inputSchema may compose at its root (a fixture a conformance suite requires).
    pub root_composition: Vec<String>,
    /// The transports each session is replayed over.
    pub transports: Vec<Transport>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            args: Vec::new(),
            patterns: Vec::new(),
            docs: Vec::new(),
            routes: serde_json::Map::new(),
            root_composition: Vec::new(),
            transports: vec![Transport::Stdio, Transport::Http],
        }
    }
}

impl Config {
    /// The `golden.json` of `dir`, or the defaults when there is none.
    pub fn load(dir: &Path) -> Result<Config, String> {
        let path = dir.join(FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let value: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let strings = |key: &str| -> Vec<String> {
            value[key].as_array().into_iter().flatten().filter_map(|a| a.as_str().map(str::to_owned)).collect()
        };
        let patterns = value["patterns"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, p)| (name.clone(), p.as_str().unwrap_or_default().to_owned()))
            .collect();
        let transports = match value.get("transports") {
            None => Config::default().transports,
            Some(_) => strings("transports")
                .iter()
                .map(|name| match name.as_str() {
                    "stdio" => Ok(Transport::Stdio),
                    "http" => Ok(Transport::Http),
                    other => Err(format!("{}: transports: {other} is neither stdio nor http", path.display())),
                })
                .collect::<Result<Vec<_>, _>>()?,
        };
        if transports.is_empty() {
            return Err(format!("{}: transports: name at least one", path.display()));
        }
        Ok(Config {
            args: strings("args"),
            patterns,
            docs: strings("docs").into_iter().map(|page| dir.join(page)).collect(),
            routes: value["routes"].as_object().cloned().unwrap_or_default(),
            root_composition: strings("rootComposition"),
            transports,
        })
    }

    /// The standard placeholders with this folder's patterns.
    pub fn placeholders(&self) -> Result<Placeholders, String> {
        let mut placeholders = Placeholders::standard();
        for (name, pattern) in &self.patterns {
            placeholders = placeholders.pattern(name, pattern).map_err(|e| format!("{FILE}: pattern {name}: {e}"))?;
        }
        Ok(placeholders)
    }
}
