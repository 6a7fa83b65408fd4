//! Docs pages whose generated regions come from the server's descriptors and its sessions:
//!
//! - `<!-- generated:tools-reference -->`: `| Tool | Maps to | Required args | Optional |`
//! - `<!-- generated:tools-purpose -->`: `| Tool | Purpose |`
//! - `<!-- generated:capture session=NAME -->`: the session's tool calls as a JSON capture
//!   (`keys=sorted` lists the keys of each request and result sorted, as a capture made from Go maps
//!   shows them)
//! - `<!-- generated:walkthrough session=NAME -->`: the session as raw protocol lines
//!
//! Each ends at `<!-- end generated -->`.

pub mod regions;
pub mod render;

use serde_json::{Map, Value};

use crate::session::SessionFile;

/// What the generators read: the tools as listed, their REST routes, and the sessions by name.
pub struct Sources<'a> {
    pub tools: &'a [Value],
    pub routes: &'a Map<String, Value>,
    pub session: &'a dyn Fn(&str) -> Result<SessionFile, String>,
}

/// The page with every generated region rewritten.
pub fn regenerate(page: &str, sources: &Sources<'_>) -> Result<String, String> {
    regions::regenerate(page, |region| {
        let session = || {
            let name = region.arg("session").ok_or("this region needs session=NAME")?;
            (sources.session)(name)
        };
        Ok(match region.kind.as_str() {
            "tools-reference" => render::reference_table(sources.tools, sources.routes),
            "tools-purpose" => render::purpose_table(sources.tools),
            "capture" => {
                let mut capture = render::capture(&session()?);
                if region.arg("keys") == Some("sorted") {
                    render::sort_result_keys(&mut capture);
                }
                format!("```json\n{}\n```\n", serde_json::to_string_pretty(&capture).unwrap_or_default())
            }
            "walkthrough" => format!("```\n{}```\n", render::walkthrough(&session()?)),
            other => return Err(format!("unknown region kind `{other}`")),
        })
    })
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
