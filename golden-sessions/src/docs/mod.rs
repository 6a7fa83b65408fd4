//! Docs pages whose generated regions come from the server's descriptors and its sessions:
//!
//! - `<!-- generated:tools-reference -->`: `| Tool | Maps to | Required args | Optional |`
//! - `<!-- generated:tools-purpose -->`: `| Tool | Purpose |`
//! - `<!-- generated:capture session=NAME -->`: the session's tool calls as a JSON capture
//!   (`keys=sorted` lists the keys of each request and result sorted, as a capture made from Go maps
//!   shows them)
//! - `<!-- generated:walkthrough session=NAME -->`: the session as raw protocol lines
//!
//! `NAME` is a session of the folder, or a path from it to a session of another folder
//! (`session=../other/NAME`: one that folder's test replays its own way). Each ends at
//! `<!-- end generated -->`. The tool tables list what the server's binary lists
//! (`bin tools`), or with `session=NAME` what that session's `tools/list` answers list (for a
//! server whose tools come from elsewhere, like the bridge's from its hub). A region made from
//! sessions only can be brought up to date without the server: [`refresh_from_sessions`], which
//! `golden accept` runs on the pages a folder's `golden.json` names.
//!
//! ```
//! use serde_json::{Map, json};
//! use tooltable_golden::docs::{Sources, regenerate};
//! use tooltable_golden::session::SessionFile;
//!
//! let tools = [json!({
//!     "name": "add", "description": "Adds two numbers.",
//!     "inputSchema": { "type": "object", "properties": { "a": {}, "b": {} }, "required": ["a", "b"] }
//! })];
//! let mut routes = Map::new();
//! routes.insert("add".into(), json!("GET /add"));
//! let no_sessions = |name: &str| -> Result<SessionFile, String> { Err(format!("no session {name}")) };
//! let sources = Sources { tools: Some(&tools), routes: &routes, session: &no_sessions };
//!
//! let page = "# Tools\n<!-- generated:tools-purpose -->\nstale\n<!-- end generated -->\nWritten by hand.\n";
//! let page = regenerate(page, &sources)?;
//! assert!(page.contains("| `add` | Adds two numbers. |"), "{page}");
//! assert!(!page.contains("stale") && page.ends_with("Written by hand.\n"));
//! # Ok::<(), String>(())
//! ```

pub mod regions;
pub mod render;

use serde_json::{Map, Value};

use crate::session::SessionFile;

/// What the generators read: the tools as the server lists them (`None` where the server is not
/// at hand: those regions stay as they are), their REST routes, and the sessions by name.
pub struct Sources<'a> {
    /// The server's descriptors, as `bin tools` prints them.
    pub tools: Option<&'a [Value]>,
    /// The route of each tool (`GET /models/{id}`), by name.
    pub routes: &'a Map<String, Value>,
    /// A session of the folder, by name.
    pub session: &'a dyn Fn(&str) -> Result<SessionFile, String>,
}

impl std::fmt::Debug for Sources<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tools = self.tools.map(<[Value]>::len);
        f.debug_struct("Sources").field("tools", &tools).field("routes", &self.routes).finish_non_exhaustive()
    }
}

/// The page with every generated region rewritten (those needing the server's descriptors only
/// when `sources.tools` has them).
pub fn regenerate(page: &str, sources: &Sources<'_>) -> Result<String, String> {
    regions::regenerate(page, |region| {
        let session = || {
            let name = region.arg("session").ok_or("this region needs session=NAME")?;
            (sources.session)(name)
        };
        let listed;
        let tools = match (region.arg("session"), sources.tools) {
            (Some(_), _) => {
                listed = render::listed_tools(&session()?);
                Some(listed.as_slice())
            }
            (None, tools) => tools,
        };
        Ok(match (region.kind.as_str(), tools) {
            ("tools-reference" | "tools-purpose", None) => page[region.body.clone()].to_owned(),
            ("tools-reference", Some(tools)) => render::reference_table(tools, sources.routes),
            ("tools-purpose", Some(tools)) => render::purpose_table(tools),
            ("capture", _) => {
                let mut capture = render::capture(&session()?);
                if region.arg("keys") == Some("sorted") {
                    render::sort_result_keys(&mut capture);
                }
                format!("```json\n{}\n```\n", serde_json::to_string_pretty(&capture).unwrap_or_default())
            }
            ("walkthrough", _) => format!("```\n{}```\n", render::walkthrough(&session()?)),
            (other, _) => return Err(format!("unknown region kind `{other}`")),
        })
    })
}

/// The page with the regions made from sessions alone rewritten; the others as they are.
pub fn refresh_from_sessions(
    page: &str,
    routes: &Map<String, Value>,
    session: &dyn Fn(&str) -> Result<SessionFile, String>,
) -> Result<String, String> {
    regenerate(page, &Sources { tools: None, routes, session })
}

/// Each tool's REST route (`GET /path`) from an OpenAPI document, by operationId.
pub fn routes_from_openapi(openapi: &Value) -> Map<String, Value> {
    let mut routes = Map::new();
    for (path, item) in openapi["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            if let Some(id) = op["operationId"].as_str() {
                routes.insert(id.to_owned(), Value::String(format!("{} {path}", method.to_uppercase())));
            }
        }
    }
    routes
}
