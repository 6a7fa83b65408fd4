//! An OpenAPI 3.1 document read into tool descriptors and the routes their calls go to: one tool
//! per operation. An operation this client cannot call faithfully (a required header or cookie
//! parameter, a request body that is not JSON, a reference outside the document's schemas) is
//! left out with the reason, rather than served half-working.

use std::collections::HashSet;

use hyper::Method;
use serde_json::{Map, Value, json};
use tooltable::tool::{Annotations, ToolDescriptor};

use super::request::{BodyShape, RequestTemplate};
use super::schemas::Defs;

/// The property that takes a request body which cannot be spread into properties.
const BODY: &str = "body";
const METHODS: [&str; 7] = ["get", "put", "post", "delete", "patch", "head", "options"];

/// One tool of the remote: its descriptor and the request its calls make.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Forwarded {
    pub(super) descriptor: ToolDescriptor,
    pub(super) template: RequestTemplate,
}

/// An operation of the remote's OpenAPI document that is not served as a tool, and why (a
/// required header or cookie parameter, a request body that is not JSON, a reference outside the
/// document's schemas): see [`Remote::skipped`](super::Remote::skipped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The operation, as `METHOD /path`.
    pub operation: String,
    /// Why it is not served, for a person.
    pub reason: String,
}

/// What a document gives: the tools, and the operations left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Reading {
    pub(super) tools: Vec<Forwarded>,
    pub(super) skipped: Vec<Skipped>,
}

/// Reads every operation of the document, in the order of its paths and methods.
pub(super) fn read(document: &Value) -> Result<Reading, String> {
    let version = document.get("openapi").and_then(Value::as_str).ok_or("it has no `openapi` version")?;
    if !version.starts_with("3.1") {
        return Err(format!("its version is {version}; only OpenAPI 3.1 is read"));
    }
    let paths = document.get("paths").and_then(Value::as_object).ok_or("it has no `paths` object")?;
    let mut reading = Reading::default();
    let mut names = HashSet::new();
    for (path, item) in paths {
        let item = deref(document, item);
        let shared = item.get("parameters").and_then(Value::as_array).cloned().unwrap_or_default();
        for method in METHODS {
            let Some(op) = item.get(method) else { continue };
            let label = format!("{} {path}", method.to_uppercase());
            match operation(document, path, method, op, &shared) {
                Ok(mut tool) => {
                    tool.descriptor.name = unique(&mut names, &tool.descriptor.name);
                    reading.tools.push(tool);
                }
                Err(reason) => reading.skipped.push(Skipped { operation: label, reason }),
            }
        }
    }
    Ok(reading)
}

fn operation(document: &Value, path: &str, method: &str, op: &Value, shared: &[Value]) -> Result<Forwarded, String> {
    let mut defs = Defs::default();
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut query = Vec::new();
    for param in parameters(document, op, shared) {
        let name = param.get("name").and_then(Value::as_str).ok_or("a parameter has no name")?;
        let location = param.get("in").and_then(Value::as_str).unwrap_or_default();
        let is_required = param.get("required").and_then(Value::as_bool).unwrap_or(false) || location == "path";
        match location {
            "path" | "query" => {}
            _ if is_required => return Err(format!("the required {location} parameter `{name}` cannot be sent")),
            _ => continue,
        }
        if properties.contains_key(name) {
            return Err(format!("`{name}` is both a path and a query parameter"));
        }
        let mut schema = defs.carry(document, param.get("schema").unwrap_or(&json!({})))?;
        if let (Some(d), Some(s)) = (param.get("description"), schema.as_object_mut()) {
            s.entry("description").or_insert_with(|| d.clone());
        }
        properties.insert(name.to_owned(), schema);
        if is_required {
            required.push(Value::from(name));
        }
        if location == "query" {
            query.push(name.to_owned());
        }
    }
    let body = request_body(document, op, &mut defs, &mut properties, &mut required)?;

    let mut input = json!({ "type": "object", "properties": properties });
    if !required.is_empty() {
        input["required"] = Value::Array(required);
    }
    let (output_schema, error_schema) = responses(document, op)?;
    let text = |key: &str| op.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
    let (summary, description) = (text("summary"), text("description"));
    let name = text("operationId").map(sanitise).unwrap_or_else(|| sanitise(&format!("{method}_{path}")));
    let descriptor = ToolDescriptor {
        // The document's summary is the tool's title when it is more than the description's first line.
        title: summary.filter(|s| description.is_some_and(|d| d.lines().next() != Some(*s))).map(str::to_owned),
        description: description.or(summary).unwrap_or_default().to_owned(),
        input_schema: defs.attach(input),
        output_schema,
        error_schema,
        annotations: annotations(method),
        ..ToolDescriptor::new(name, "", Value::Null)
    };
    let method = Method::from_bytes(method.to_uppercase().as_bytes()).map_err(|e| e.to_string())?;
    Ok(Forwarded { descriptor, template: RequestTemplate { method, path: path.to_owned(), query, body } })
}

/// The operation's parameters, then the path item's it does not override (same name and place).
fn parameters<'a>(document: &'a Value, op: &'a Value, shared: &'a [Value]) -> Vec<&'a Value> {
    let own: Vec<&Value> =
        op.get("parameters").and_then(Value::as_array).into_iter().flatten().map(|p| deref(document, p)).collect();
    let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
    let inherited = shared.iter().map(|p| deref(document, p)).filter(|p| !own.iter().any(|o| key(o) == key(p)));
    let mut all = own.clone();
    all.extend(inherited);
    all
}

/// Adds the request body to the input: its properties when it is an object schema listing them
/// and closed to others, and none collides with a parameter; else one `body` property.
fn request_body(
    document: &Value,
    op: &Value,
    defs: &mut Defs,
    properties: &mut Map<String, Value>,
    required: &mut Vec<Value>,
) -> Result<BodyShape, String> {
    let Some(body) = op.get("requestBody").map(|b| deref(document, b)) else { return Ok(BodyShape::None) };
    let content = body.get("content").and_then(Value::as_object).ok_or("the request body has no content")?;
    let schema = content
        .iter()
        .find(|(media, _)| is_json(media))
        .map(|(_, m)| m.get("schema").cloned().unwrap_or(json!({})))
        .ok_or("the request body is not JSON")?;
    let body_required = body.get("required").and_then(Value::as_bool).unwrap_or(false);
    let schema = defs.carry_root(document, &schema)?;
    let fields = schema.get("properties").and_then(Value::as_object).filter(|fields| {
        tooltable::schema::is_object_schema(&schema)
            && matches!(schema.get("additionalProperties"), None | Some(Value::Bool(false)))
            && !fields.keys().any(|k| properties.contains_key(k))
    });
    if let Some(fields) = fields {
        properties.extend(fields.clone());
        required.extend(schema.get("required").and_then(Value::as_array).into_iter().flatten().cloned());
        return Ok(BodyShape::Fields(fields.keys().cloned().collect()));
    }
    if properties.contains_key(BODY) {
        return Err(format!("a parameter is named `{BODY}`, the name the request body takes"));
    }
    properties.insert(BODY.into(), schema);
    if body_required {
        required.push(BODY.into());
    }
    Ok(BodyShape::Whole(BODY.into()))
}

/// The outputSchema (the first 2xx JSON response's schema, when it is an object) and the schema
/// of the error bodies (those of the 4xx and 5xx JSON responses), each with its references carried.
fn responses(document: &Value, op: &Value) -> Result<(Option<Value>, Option<Value>), String> {
    let Some(responses) = op.get("responses").and_then(Value::as_object) else { return Ok((None, None)) };
    let json_schema = |response: &Value| {
        let content = deref(document, response).get("content")?.as_object()?;
        content.iter().find(|(media, _)| is_json(media))?.1.get("schema").cloned()
    };
    let (mut success_defs, mut error_defs) = (Defs::default(), Defs::default());
    let mut success = None;
    let mut errors: Vec<Value> = Vec::new();
    for (status, response) in responses {
        let Some(schema) = json_schema(response) else { continue };
        if status.starts_with('2') {
            if success.is_none() {
                success = Some(success_defs.carry_root(document, &schema)?);
            }
        } else if status.starts_with('4') || status.starts_with('5') {
            let schema = error_defs.carry(document, &schema)?;
            if !errors.contains(&schema) {
                errors.push(schema);
            }
        }
    }
    let Some(success) = success.filter(tooltable::schema::is_object_schema) else { return Ok((None, None)) };
    let errors = match errors.len() {
        0 => None,
        1 => errors.pop(),
        _ => Some(json!({ "anyOf": errors })),
    };
    Ok((Some(success_defs.attach(success)), errors.map(|e| error_defs.attach(e))))
}

/// Follows a local `$ref` (a parameter, request body, response or path item defined once in the
/// components) a few steps; anything else is returned as it is.
fn deref<'a>(document: &'a Value, mut value: &'a Value) -> &'a Value {
    for _ in 0..8 {
        match value
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| document.pointer(p))
        {
            Some(target) => value = target,
            None => break,
        }
    }
    value
}

fn is_json(media: &str) -> bool {
    let media = media.split(';').next().unwrap_or_default().trim();
    media == "application/json" || media.ends_with("+json")
}

/// What the method says of the operation, and nothing more.
fn annotations(method: &str) -> Annotations {
    match method {
        "get" | "head" => Annotations { read_only: Some(true), ..Annotations::default() },
        "delete" => Annotations { destructive: Some(true), ..Annotations::default() },
        "put" => Annotations { idempotent: Some(true), ..Annotations::default() },
        _ => Annotations::default(),
    }
}

/// A tool name: each character outside `[A-Za-z0-9_.-]` becomes `_`, at most 128 of them.
fn sanitise(name: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') { c } else { '_' })
        .take(128)
        .collect();
    if name.is_empty() { "operation".into() } else { name }
}

/// `name`, or `name_2`, `name_3`... when two operations sanitise to one name.
fn unique(taken: &mut HashSet<String>, name: &str) -> String {
    let mut candidate = name.to_owned();
    let mut n = 2;
    while !taken.insert(candidate.clone()) {
        let suffix = format!("_{n}");
        candidate = format!("{}{suffix}", &name[..name.len().min(128 - suffix.len())]);
        n += 1;
    }
    candidate
}

#[cfg(test)]
mod tests;
