//! The MCP schema of each revision the servers speak, embedded from `mcp-schema/<revision>/`
//! (byte copies of the specification's; origin and licence in `mcp-schema/README.md`): every
//! tool descriptor a server lists must be a valid `Tool` of each, since a host built on an
//! official SDK throws away the whole `tools/list` for one that is not.
//!
//! ```
//! use serde_json::json;
//! use tooltable_golden::mcp_schema::tool_problems;
//!
//! let valid = json!({ "name": "ping", "inputSchema": { "type": "object" } });
//! assert!(tool_problems(&[valid])?.is_empty());
//! let no_schema = json!({ "name": "ping", "description": "no inputSchema" });
//! let problems = tool_problems(&[no_schema])?;
//! assert!(!problems.is_empty() && problems.iter().all(|p| p.contains("ping")), "{problems:?}");
//! # Ok::<(), String>(())
//! ```

use serde_json::Value;

/// The revisions whose `Tool` definition a descriptor must satisfy.
pub const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// The JSON Schema of every message of each of [`REVISIONS`], in that order.
const SCHEMAS: [&str; 2] =
    [include_str!("../mcp-schema/2025-11-25/schema.json"), include_str!("../mcp-schema/2026-07-28/schema.json")];

/// What is wrong with each tool under each revision; empty when every tool is valid.
pub fn tool_problems(tools: &[Value]) -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    for (revision, text) in REVISIONS.into_iter().zip(SCHEMAS) {
        let mut schema: Value = serde_json::from_str(text).map_err(|e| format!("the {revision} schema: {e}"))?;
        schema["$ref"] = Value::from("#/$defs/Tool");
        let validator = jsonschema::validator_for(&schema).map_err(|e| format!("the {revision} schema: {e}"))?;
        for tool in tools {
            let name = tool["name"].as_str().unwrap_or("?");
            for error in validator.iter_errors(tool) {
                problems.push(format!("{revision}: tool {name}: {} at {}", error, error.instance_path()));
            }
        }
    }
    Ok(problems)
}

/// What [`tool_problems`] finds, and each inputSchema that composes at its root (`allOf`,
/// `anyOf`, `oneOf`), which the Anthropic API refuses in every request that lists the tool,
/// unless the tool is `allowed` such a root.
pub fn descriptor_problems(tools: &[Value], allowed: &[String]) -> Result<Vec<String>, String> {
    let mut problems = tool_problems(tools)?;
    let names = tools.iter().map(|tool| (tool, tool["name"].as_str().unwrap_or("?")));
    for (tool, name) in names.filter(|(_, name)| !allowed.iter().any(|a| a == name)) {
        for keyword in ["allOf", "anyOf", "oneOf"].into_iter().filter(|k| tool["inputSchema"].get(*k).is_some()) {
            problems
                .push(format!("tool {name}: `{keyword}` at the inputSchema's root, which the Anthropic API refuses"));
        }
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_property_schema_written_true_is_rejected() {
        let schema = json!({ "type": "object", "properties": { "result": true } });
        let tool = json!({ "name": "t", "inputSchema": { "type": "object" }, "outputSchema": schema });
        let problems = tool_problems(&[tool]).unwrap();
        assert!(problems.iter().any(|p| p.starts_with("2025-11-25: tool t:")), "{problems:?}");
        let fine = json!({ "name": "t", "inputSchema": { "type": "object", "properties": { "a": {} } } });
        assert_eq!(tool_problems(&[fine]).unwrap(), Vec::<String>::new());
    }
}
