//! A tooltable server's own descriptors (what `SERVER tools` prints, the MCP `Tool` objects) laid
//! over the tools read from its OpenAPI document: the document gives each tool its route, the
//! descriptors give it the exact schemas, title and hints the server states. A body argument the
//! document could only call `body` takes the name the descriptor gives it.

use std::collections::BTreeSet;

use serde_json::Value;
use tooltable::tool::Annotations;

use super::openapi::{Forwarded, Reading};
use super::request::BodyShape;

/// Lays each descriptor over the tool of its name; a descriptor with no such tool is ignored (it
/// has no REST route, so there is nowhere to forward it).
pub(super) fn apply(reading: &mut Reading, descriptors: &Value) -> Result<(), String> {
    let tools = descriptors.as_array().ok_or("the descriptors are not a JSON array of tools")?;
    for tool in tools {
        let name = tool.get("name").and_then(Value::as_str).ok_or("a descriptor has no `name`")?;
        if let Some(forwarded) = reading.tools.iter_mut().find(|t| t.descriptor.name == name) {
            overlay(forwarded, tool).map_err(|reason| format!("the descriptor of {name}: {reason}"))?;
        }
    }
    Ok(())
}

fn overlay(forwarded: &mut Forwarded, tool: &Value) -> Result<(), String> {
    let input = tool.get("inputSchema").filter(|s| s.is_object()).ok_or("it has no `inputSchema` object")?;
    let (theirs, ours) = (property_names(input), property_names(&forwarded.descriptor.input_schema));
    if theirs != ours {
        let only_theirs: Vec<&String> = theirs.difference(&ours).collect();
        let only_ours: Vec<&String> = ours.difference(&theirs).collect();
        match (&mut forwarded.template.body, only_theirs.as_slice(), only_ours.as_slice()) {
            (BodyShape::Whole(body), [named], [unnamed]) if body == *unnamed => *body = (*named).clone(),
            // A closed object body was spread into its fields; the server takes it as one argument.
            (BodyShape::Fields(fields), [named], spread) if same_names(fields, spread) => {
                forwarded.template.body = BodyShape::Whole((*named).clone());
            }
            _ => return Err(format!("its arguments {theirs:?} are not the route's {ours:?}")),
        }
    }
    let d = &mut forwarded.descriptor;
    d.input_schema = input.clone();
    // The MCP outputSchema already joins the error bodies to the success value.
    d.output_schema = tool.get("outputSchema").cloned();
    d.error_schema = None;
    d.title = tool.get("title").and_then(Value::as_str).map(str::to_owned);
    if let Some(description) = tool.get("description").and_then(Value::as_str) {
        d.description = description.to_owned();
    }
    let hint = |key: &str| tool.get("annotations").and_then(|a| a.get(key)).and_then(Value::as_bool);
    d.annotations = Annotations {
        read_only: hint("readOnlyHint"),
        destructive: hint("destructiveHint"),
        idempotent: hint("idempotentHint"),
        open_world: hint("openWorldHint"),
    };
    Ok(())
}

fn same_names(fields: &[String], spread: &[&String]) -> bool {
    fields.len() == spread.len() && spread.iter().all(|name| fields.contains(name))
}

fn property_names(schema: &Value) -> BTreeSet<String> {
    schema.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::Method;
    use serde_json::json;
    use tooltable::tool::ToolDescriptor;

    use crate::forward::request::RequestTemplate;

    fn reading() -> Reading {
        let input = json!({ "type": "object", "properties": { "id": {}, "body": {} }, "required": ["id"] });
        let template = RequestTemplate {
            method: Method::POST,
            path: "/models/{id}/mutations".into(),
            query: vec![],
            body: BodyShape::Whole("body".into()),
        };
        Reading {
            tools: vec![Forwarded { descriptor: ToolDescriptor::new("mutate", "Mutates.", input), template }],
            skipped: vec![],
        }
    }

    #[test]
    fn the_descriptor_names_the_body_and_states_the_hints() {
        let mut reading = reading();
        let own = json!([
            {
                "name": "mutate", "title": "Mutate", "description": "Applies mutations.",
                "inputSchema": { "type": "object", "properties": { "id": { "type": "string" }, "mutations": { "type": "object" } }, "required": ["id", "mutations"] },
                "outputSchema": { "type": "object", "anyOf": [{}, {}] },
                "annotations": { "destructiveHint": false, "idempotentHint": true },
            },
            { "name": "mcp_only", "inputSchema": { "type": "object" } },
        ]);
        apply(&mut reading, &own).unwrap();
        let tool = &reading.tools[0];
        assert_eq!(tool.template.body, BodyShape::Whole("mutations".into()));
        assert_eq!(tool.descriptor.to_mcp(), own[0]);
        assert_eq!(reading.tools.len(), 1, "a tool without a route is not added");
    }

    #[test]
    fn a_body_spread_into_fields_is_one_argument_when_the_descriptor_says_so() {
        let input = json!({ "type": "object", "properties": { "id": {}, "name": {} } });
        let template = RequestTemplate {
            method: Method::POST,
            path: "/models".into(),
            query: vec![],
            body: BodyShape::Fields(vec!["id".into(), "name".into()]),
        };
        let mut reading = Reading {
            tools: vec![Forwarded { descriptor: ToolDescriptor::new("create", "Creates.", input), template }],
            skipped: vec![],
        };
        let own = json!([{ "name": "create", "inputSchema": { "type": "object", "properties": { "spec": {} } } }]);
        apply(&mut reading, &own).unwrap();
        assert_eq!(reading.tools[0].template.body, BodyShape::Whole("spec".into()));
    }

    #[test]
    fn descriptors_that_do_not_fit_are_refused() {
        let wrong_args =
            json!([{ "name": "mutate", "inputSchema": { "type": "object", "properties": { "x": {}, "y": {} } } }]);
        let refused = apply(&mut reading(), &wrong_args).unwrap_err();
        assert_eq!(refused, r#"the descriptor of mutate: its arguments {"x", "y"} are not the route's {"body", "id"}"#);
        assert_eq!(apply(&mut reading(), &json!({})).unwrap_err(), "the descriptors are not a JSON array of tools");
        assert_eq!(apply(&mut reading(), &json!([{}])).unwrap_err(), "a descriptor has no `name`");
    }
}
