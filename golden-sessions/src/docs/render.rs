//! What generated regions hold: tool reference tables from the descriptors, a JSON capture of a
//! session's tool calls, and a raw-protocol walkthrough of a session.
//!
//! ```
//! use serde_json::{Map, json};
//! use tooltable_golden::docs::render::{purpose_table, reference_table};
//!
//! let tools = [json!({
//!     "name": "get_note",
//!     "description": "One note by its id.\n\nMore detail a table leaves out.",
//!     "inputSchema": { "type": "object", "properties": { "id": {}, "verbose": {} }, "required": ["id"] }
//! })];
//! let mut routes = Map::new();
//! routes.insert("get_note".into(), json!("GET /notes/{id}"));
//! assert!(reference_table(&tools, &routes).contains("| `get_note` | `GET /notes/{id}` | `id` | `verbose` |"));
//! assert!(purpose_table(&tools).contains("| `get_note` | One note by its id. |"));
//! ```

use serde_json::{Map, Value, json};

use crate::client::is_response_to;
use crate::session::{Line, SessionFile};

/// `| Tool | Maps to | Required args | Optional |`, one row per tool in listing order. `routes`
/// maps a tool name to its REST route (`GET /models/{id}`).
pub fn reference_table(tools: &[Value], routes: &Map<String, Value>) -> String {
    let mut out = String::from("| Tool | Maps to | Required args | Optional |\n|---|---|---|---|\n");
    for tool in tools {
        let name = tool["name"].as_str().unwrap_or("");
        let schema = &tool["inputSchema"];
        let required: Vec<&str> =
            schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let optional: Vec<&str> = schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k.as_str())
            .filter(|k| !required.contains(k))
            .collect();
        let route = routes.get(name).and_then(Value::as_str).map_or("—".to_owned(), |r| format!("`{r}`"));
        out.push_str(&format!("| `{name}` | {route} | {} | {} |\n", code_list(&required), code_list(&optional)));
    }
    out
}

/// `| Tool | Purpose |`: the first paragraph of each description, on one line.
pub fn purpose_table(tools: &[Value]) -> String {
    let mut out = String::from("| Tool | Purpose |\n|---|---|\n");
    for tool in tools {
        let name = tool["name"].as_str().unwrap_or("");
        let description = tool["description"].as_str().unwrap_or("");
        let paragraph: Vec<&str> = description.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
        let purpose = paragraph.join(" ").replace('|', "\\|");
        out.push_str(&format!("| `{name}` | {purpose} |\n"));
    }
    out
}

fn code_list(names: &[&str]) -> String {
    if names.is_empty() {
        "—".to_owned()
    } else {
        names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
    }
}

/// The tools a session's `tools/list` answers list, each name once, in the order listed.
pub fn listed_tools(session: &SessionFile) -> Vec<Value> {
    let mut tools: Vec<Value> = Vec::new();
    for step in session.steps().iter().filter(|s| s.sent["method"] == "tools/list") {
        for (_, answer) in
            step.received.iter().filter(|(_, m)| step.sent.get("id").is_some_and(|id| is_response_to(m, id)))
        {
            for tool in answer["result"]["tools"].as_array().into_iter().flatten() {
                if !tools.iter().any(|t| t["name"] == tool["name"]) {
                    tools.push(tool.clone());
                }
            }
        }
    }
    tools
}

/// The tool calls of a session as `{protocol_version, tools, examples: [{tool, request, result}]}`:
/// the tool names sorted, each result its structuredContent (or its text parsed as JSON).
pub fn capture(session: &SessionFile) -> Value {
    let mut protocol_version = Value::Null;
    let mut tools: Vec<String> = Vec::new();
    let mut examples = Vec::new();
    for step in session.steps() {
        let method = step.sent["method"].as_str().unwrap_or("");
        let response =
            step.received.iter().map(|(_, v)| v).find(|v| step.sent.get("id").is_some_and(|id| is_response_to(v, id)));
        let Some(result) = response.map(|r| &r["result"]) else { continue };
        match method {
            "initialize" => protocol_version = result["protocolVersion"].clone(),
            "tools/list" => tools.extend(
                result["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str().map(str::to_owned)),
            ),
            "tools/call" => {
                let value = result.get("structuredContent").cloned().unwrap_or_else(|| {
                    let text = result["content"][0]["text"].as_str().unwrap_or("");
                    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
                });
                examples.push(json!({
                    "tool": step.sent["params"]["name"],
                    "request": step.sent["params"].get("arguments").cloned().unwrap_or(json!({})),
                    "result": value,
                }));
            }
            _ => {}
        }
    }
    tools.sort();
    json!({ "protocol_version": protocol_version, "tools": tools, "examples": examples })
}

/// Sorts the keys of each example's request and result in a capture; the capture's own frame
/// (`protocol_version`, `tools`, `examples`; `tool`, `request`, `result`) keeps its order.
pub fn sort_result_keys(capture: &mut Value) {
    for example in capture["examples"].as_array_mut().into_iter().flatten() {
        sort_keys(&mut example["request"]);
        sort_keys(&mut example["result"]);
    }
}

/// Rewrites every object in `v` with its keys sorted.
pub fn sort_keys(v: &mut Value) {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            for (key, mut value) in entries {
                sort_keys(&mut value);
                map.insert(key, value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(sort_keys),
        _ => {}
    }
}

/// The session's messages as a raw-protocol walkthrough: `→`/`←` lines, a blank line between
/// exchanges, the file's comments left out.
pub fn walkthrough(session: &SessionFile) -> String {
    let mut out = String::new();
    let mut first = true;
    for (_, line) in &session.lines {
        match line {
            Line::Sent(v) => {
                if !first {
                    out.push('\n');
                }
                first = false;
                out.push_str(&format!("→ {v}\n"));
            }
            Line::Received(v) => out.push_str(&format!("← {v}\n")),
            Line::Text(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_and_capture() {
        let tools = vec![json!({
            "name": "get_state",
            "description": "Read a model's\nstate.\n\nMore.",
            "inputSchema": { "type": "object", "properties": { "id": {}, "depth": {} }, "required": ["id"] },
        })];
        let mut routes = Map::new();
        routes.insert("get_state".into(), json!("GET /models/{id}/state"));
        assert_eq!(
            reference_table(&tools, &routes),
            "| Tool | Maps to | Required args | Optional |\n|---|---|---|---|\n| `get_state` | `GET /models/{id}/state` | `id` | `depth` |\n"
        );
        assert_eq!(purpose_table(&tools), "| Tool | Purpose |\n|---|---|\n| `get_state` | Read a model's state. |\n");
        let session = SessionFile::parse(concat!(
            "→ {\"id\":1,\"method\":\"initialize\"}\n",
            "← {\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\"}}\n",
            "→ {\"id\":2,\"method\":\"tools/list\"}\n",
            "← {\"id\":2,\"result\":{\"tools\":[{\"name\":\"b\"},{\"name\":\"a\"}]}}\n",
            "→ {\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"a\",\"arguments\":{\"x\":1}}}\n",
            "← {\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"[1]\"}],\"isError\":false}}\n",
        ))
        .unwrap();
        assert_eq!(
            capture(&session),
            json!({ "protocol_version": "2025-11-25", "tools": ["a", "b"], "examples": [{ "tool": "a", "request": { "x": 1 }, "result": [1] }] })
        );
        assert!(walkthrough(&session).starts_with("→ {\"id\":1,\"method\":\"initialize\"}\n← "));
    }
}
