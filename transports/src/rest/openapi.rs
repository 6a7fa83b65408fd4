//! The OpenAPI 3.1 document of a table's REST routes: operationId = tool name, summary and
//! description from the doc comment, parameters, requestBody, and responses with their schemas,
//! including the error bodies under the status each error kind maps to: the tool's error type's
//! schema, when it states one, or the server's own failure body.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use tooltable::ErrorKind;
use tooltable::server::ServerInfo;
use tooltable::tool::ToolDescriptor;

/// The component of the body of the failures the server words itself.
const ERROR: &str = "Error";

/// Builds the document. Each schema's `$defs` move to `components/schemas` (a `#/$defs/..`
/// reference would otherwise point into the document root), renamed where two differ.
pub(crate) fn document(info: &ServerInfo, description: Option<&str>, tools: &[ToolDescriptor]) -> Value {
    let mut components = Components::default();
    components.schemas.insert(
        ERROR.into(),
        json!({
            "type": "object",
            "description": "A failure: `error` says what went wrong; a body may add fields of its own (violations, expected, actual...). An operation whose error type states its schema answers with bodies of that schema too.",
            "properties": { "error": { "type": "string" } },
            "required": ["error"],
        }),
    );
    let mut paths: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for tool in tools {
        let Some(rest) = &tool.rest else { continue };
        let input = components.hoist(&tool.input_schema);
        let path_params: Vec<&str> = rest.path_params().collect();
        let required: Vec<&str> =
            input.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let properties = input.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        let has_body = matches!(rest.method.as_str(), "POST" | "PUT" | "PATCH");

        let mut parameters = Vec::new();
        let mut body_properties = Map::new();
        for (name, schema) in &properties {
            let location = if path_params.contains(&name.as_str()) {
                "path"
            } else if has_body && rest.body.is_none() {
                body_properties.insert(name.clone(), schema.clone());
                continue;
            } else if rest.body.as_deref() == Some(name.as_str()) {
                continue;
            } else {
                "query"
            };
            let mut p = Map::new();
            p.insert("name".into(), json!(name));
            p.insert("in".into(), json!(location));
            p.insert("required".into(), json!(location == "path" || required.contains(&name.as_str())));
            if let Some(d) = schema.get("description") {
                p.insert("description".into(), d.clone());
            }
            p.insert("schema".into(), schema.clone());
            parameters.push(Value::Object(p));
        }

        let mut op = Map::new();
        op.insert("operationId".into(), json!(tool.name));
        op.insert("summary".into(), json!(tool.title.clone().unwrap_or_else(|| first_line(&tool.description))));
        op.insert("description".into(), json!(tool.description));
        if !parameters.is_empty() {
            op.insert("parameters".into(), Value::Array(parameters));
        }
        if has_body {
            // The body is required when its field is, or, for a body of the remaining
            // arguments, when any of them is.
            let (body_schema, body_required) = match &rest.body {
                Some(field) => {
                    (properties.get(field).cloned().unwrap_or(json!({})), required.contains(&field.as_str()))
                }
                None => {
                    let fields: Vec<&str> = required.iter().copied().filter(|r| !path_params.contains(r)).collect();
                    let required = !fields.is_empty();
                    // Without path parameters the body is the arguments: the inputSchema whole,
                    // with what its root says across fields (a `not`, an `if`). With them, only
                    // the fields: a root rule could require an argument the path carries.
                    let mut body = match path_params.is_empty() {
                        true => input.clone(),
                        false => json!({ "type": "object", "properties": body_properties, "required": fields }),
                    };
                    // The server refuses an argument its schema does not name; the body says so,
                    // so that a client generated from the document never sends one.
                    if !tool.allow_unknown_args {
                        body["additionalProperties"] = json!(false);
                    }
                    (body, required)
                }
            };
            op.insert(
                "requestBody".into(),
                json!({ "required": body_required, "content": { "application/json": { "schema": body_schema } } }),
            );
        }
        let mut responses = Map::new();
        let mut success = match &tool.output_schema {
            Some(schema) => {
                json!({ "description": "The operation's result.", "content": { "application/json": { "schema": components.hoist(schema) } } })
            }
            None => {
                json!({ "description": "The operation's result (any JSON).", "content": { "application/json": { "schema": {} } } })
            }
        };
        if let Some(location) = &rest.location {
            let description = format!("Where the result is: `{location}`, filled from the result's fields.");
            success["headers"] = json!({ "Location": { "description": description, "schema": { "type": "string" } } });
        }
        responses.insert(rest.status.to_string(), success);
        let failure = error_body(&mut components, tool, tools);
        // Kinds that share a status share its response, their descriptions joined.
        for kind in ErrorKind::ALL {
            let status = kind.http_status().to_string();
            if let Some(Value::String(text)) = responses.get_mut(&status).and_then(|r| r.get_mut("description")) {
                text.push(' ');
                text.push_str(error_description(kind));
                continue;
            }
            responses.insert(
                status,
                json!({ "description": error_description(kind), "content": { "application/json": { "schema": failure } } }),
            );
        }
        op.insert("responses".into(), Value::Object(responses));
        paths.entry(rest.path.clone()).or_default().insert(rest.method.to_lowercase(), Value::Object(op));
    }
    let mut info_object = Map::new();
    info_object.insert("title".into(), json!(info.name));
    info_object.insert("version".into(), json!(info.version));
    if let Some(d) = description {
        info_object.insert("description".into(), json!(d));
    }
    json!({
        "openapi": "3.1.0",
        "info": info_object,
        "paths": paths,
        "components": { "schemas": components.schemas },
    })
}

/// The schema of a tool's failure bodies. A tool whose error type states its schema answers with
/// that type's bodies, and with the server's own when the request fails before the tool runs (an
/// argument the input schema refuses, a malformed body), so with either (as MCP's outputSchema
/// admits the error type's alongside the success value). Its component is named after the tool,
/// or `ToolError` when several tools state the same one (a server's one error type).
fn error_body(components: &mut Components, tool: &ToolDescriptor, tools: &[ToolDescriptor]) -> Value {
    let server_failure = json!({ "$ref": format!("#/components/schemas/{ERROR}") });
    let Some(schema) = &tool.error_schema else { return server_failure };
    let stating = tools.iter().filter(|t| t.rest.is_some() && t.error_schema.as_ref() == Some(schema)).count();
    let name = match stating {
        1 => format!("{}Error", pascal_case(&tool.name)),
        _ => "ToolError".to_owned(),
    };
    let schema = components.hoist(schema);
    let name = components.add(&name, schema);
    json!({ "anyOf": [{ "$ref": format!("#/components/schemas/{name}") }, server_failure] })
}

/// `get_note` as `GetNote`: a tool's name as the name of a type generated from the document.
fn pascal_case(name: &str) -> String {
    let words = name.split(['_', '-', '.']).filter(|w| !w.is_empty());
    words.fold(String::new(), |mut out, word| {
        let mut chars = word.chars();
        out.extend(chars.next().map(|c| c.to_ascii_uppercase()));
        out.push_str(chars.as_str());
        out
    })
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_owned()
}

fn error_description(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::InvalidInput => {
            "Invalid input: arguments that break the input schema, or a value the operation refuses."
        }
        ErrorKind::Unauthorized => "Unauthorized: the call needs credentials the request did not carry.",
        ErrorKind::Forbidden => "Forbidden: not available to this caller.",
        ErrorKind::NotFound => "Not found.",
        ErrorKind::Conflict => "Conflict with the current state.",
        ErrorKind::BadRequest => "Bad request: a malformed body or query.",
        ErrorKind::TooLarge => "Too large.",
        ErrorKind::TooMany => "Too many: the server holds or accepts no more of these for now.",
        ErrorKind::Internal => "Internal error.",
        ErrorKind::Timeout => "Time limit exceeded: the operation ran past its time limit and was cancelled.",
        ErrorKind::ElicitationRequired => {
            "Or: the user must first complete the URL elicitations `elicitations` lists, then retry."
        }
    }
}

#[derive(Default)]
struct Components {
    schemas: BTreeMap<String, Value>,
}

impl Components {
    /// The schema without `$schema` and `$defs`, its definitions moved to the components and its
    /// references rewritten to them.
    fn hoist(&mut self, schema: &Value) -> Value {
        let mut schema = schema.clone();
        let Some(root) = schema.as_object_mut() else { return schema };
        root.remove("$schema");
        let defs = root.remove("$defs").and_then(|d| d.as_object().cloned()).unwrap_or_default();
        let renames: BTreeMap<String, String> =
            defs.iter().map(|(name, def)| (name.clone(), self.free_name(name, def))).collect();
        for (name, mut def) in defs {
            rewrite_refs(&mut def, &renames);
            self.schemas.insert(renames[&name].clone(), def);
        }
        rewrite_refs(&mut schema, &renames);
        schema
    }

    /// Puts `schema` under `name`, or under `name` numbered when another schema has that name;
    /// returns the name it is under.
    fn add(&mut self, name: &str, schema: Value) -> String {
        let name = self.free_name(name, &schema);
        self.schemas.insert(name.clone(), schema);
        name
    }

    /// `name`, unless a different schema has it: then `name2`, `name3`...
    fn free_name(&self, name: &str, schema: &Value) -> String {
        let mut unique = name.to_owned();
        let mut n = 2;
        while self.schemas.get(&unique).is_some_and(|existing| existing != schema) {
            unique = format!("{name}{n}");
            n += 1;
        }
        unique
    }
}

fn rewrite_refs(v: &mut Value, renames: &BTreeMap<String, String>) {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get_mut("$ref")
                && let Some(name) = r.strip_prefix("#/$defs/")
            {
                let name = renames.get(name).cloned().unwrap_or_else(|| name.to_owned());
                *r = format!("#/components/schemas/{name}");
            }
            map.values_mut().for_each(|v| rewrite_refs(v, renames));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite_refs(v, renames)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tooltable::server::ServerInfo;
    use tooltable::tool::{RestRoute, ToolDescriptor};

    fn tool(name: &str, path: &str) -> ToolDescriptor {
        let schema = json!({
            "type": "object",
            "properties": { "id": { "type": "string" }, "a": {}, "b": {} },
            "required": ["id"],
            "not": { "required": ["a", "b"] },
        });
        let mut tool = ToolDescriptor::new(name, "d", schema);
        tool.rest =
            Some(RestRoute { method: "POST".into(), path: path.into(), body: None, status: 200, location: None });
        tool
    }

    #[test]
    fn a_body_that_is_the_arguments_keeps_what_the_root_says_across_fields() {
        let info = ServerInfo { name: "s".into(), version: "1".into() };
        let doc = super::document(&info, None, &[tool("whole", "/whole"), tool("split", "/items/{id}")]);
        let body =
            |path: &str| doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"].clone();
        assert_eq!(body("/whole")["not"], json!({ "required": ["a", "b"] }));
        assert_eq!(body("/whole")["additionalProperties"], false);
        let split = body("/items/{id}");
        assert_eq!(split["required"], json!([]), "`id` is in the path");
        assert!(split.get("not").is_none(), "a root rule may name what the path carries: {split}");
    }

    #[test]
    fn failures_are_described_by_the_error_type_when_it_states_its_schema() {
        let info = ServerInfo { name: "s".into(), version: "1".into() };
        let shared = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": { "error": { "const": "no_such_note" }, "why": { "$ref": "#/$defs/Error" } },
            "$defs": { "Error": { "type": "string", "description": "the error type's own" } },
        });
        let own = json!({ "type": "object", "properties": { "expected": { "type": "integer" } } });
        let mut tools =
            vec![tool("get_note", "/a"), tool("delete-note", "/b"), tool("move.note", "/c"), tool("plain", "/d")];
        (tools[0].error_schema, tools[1].error_schema, tools[2].error_schema) =
            (Some(shared.clone()), Some(shared), Some(own));
        let doc = super::document(&info, None, &tools);
        let failure = |path: &str, status: &str| {
            doc["paths"][path]["post"]["responses"][status]["content"]["application/json"]["schema"].clone()
        };
        let either = |name: &str| json!({ "anyOf": [{ "$ref": format!("#/components/schemas/{name}") }, { "$ref": "#/components/schemas/Error" }] });
        assert_eq!(failure("/a", "404"), either("ToolError"), "a schema several tools state is named for none of them");
        assert_eq!(failure("/b", "409"), either("ToolError"));
        assert_eq!(failure("/c", "422"), either("MoveNoteError"));
        assert_eq!(failure("/d", "500"), json!({ "$ref": "#/components/schemas/Error" }));
        let schemas = &doc["components"]["schemas"];
        assert_eq!(schemas["ToolError"]["properties"]["why"]["$ref"], "#/components/schemas/Error2", "{schemas}");
        assert_eq!(schemas["Error2"]["description"], "the error type's own");
        assert!(schemas["ToolError"].get("$schema").is_none() && schemas["ToolError"].get("$defs").is_none());
        assert_eq!(schemas["Error"]["required"], json!(["error"]), "the server's own failure keeps its name");
        assert_eq!(schemas["MoveNoteError"]["properties"]["expected"]["type"], "integer");
    }
}
