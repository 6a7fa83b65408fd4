//! A REST request's arguments, assembled into the object the tool's inputSchema describes: path
//! parameters, the query string (typed by the schema: integers, numbers, booleans, arrays,
//! objects), and the JSON body or the one field that takes it. A value that does not convert stays
//! a string, so schema validation names it with path, keyword and message.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::{Map, Value};
use tooltable::transport::numbers;

use super::routes::Route;

/// A request whose arguments cannot be assembled (400).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ArgsError(pub String);

/// What a value given as text converts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Integer,
    Number,
    Boolean,
    /// An object (or null), given as JSON text.
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ParamType {
    kind: Kind,
    /// Every value of the parameter goes into an array, each converted to `kind`.
    array: bool,
}

const TEXT: ParamType = ParamType { kind: Kind::Text, array: false };

/// How each argument given as text (a path parameter, a query value) converts, read from the
/// input schema once, when the routes are built; a name the schema does not list stays text.
#[derive(Debug, Default)]
pub(crate) struct ParamTypes(Vec<(String, ParamType)>);

impl ParamTypes {
    pub(crate) fn of(schema: &Value) -> Self {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return ParamTypes::default();
        };
        let types = properties
            .iter()
            .map(|(name, property)| {
                let property = resolve(schema, property);
                let ty = match type_of(property) {
                    "array" => ParamType {
                        kind: property.get("items").map_or(Kind::Text, |i| kind(type_of(resolve(schema, i)))),
                        array: true,
                    },
                    other => ParamType { kind: kind(other), array: false },
                };
                (name.clone(), ty)
            })
            .collect();
        ParamTypes(types)
    }

    fn get(&self, name: &str) -> ParamType {
        self.0.iter().find(|(n, _)| n == name).map_or(TEXT, |(_, ty)| *ty)
    }
}

fn kind(json_type: &str) -> Kind {
    match json_type {
        "integer" => Kind::Integer,
        "number" => Kind::Number,
        "boolean" => Kind::Boolean,
        "object" | "null" => Kind::Json,
        _ => Kind::Text,
    }
}

pub(crate) fn assemble(
    route: &Route,
    path: BTreeMap<String, String>,
    query: Option<&str>,
    body: &[u8],
) -> Result<Value, ArgsError> {
    let mut args = Map::new();
    for (name, raw) in path {
        let value = typed(route.param_types.get(&name), std::iter::once(raw.as_str()));
        args.insert(name, value);
    }
    // Sorted by name, stably: a repeated name keeps its values in order.
    let mut query_values: Vec<(Cow<str>, Cow<str>)> = form_urlencoded::parse(query.unwrap_or("").as_bytes()).collect();
    query_values.sort_by(|a, b| a.0.cmp(&b.0));
    for group in query_values.chunk_by(|a, b| a.0 == b.0) {
        let name = &group[0].0;
        if args.contains_key(name.as_ref()) {
            return Err(ArgsError(format!("`{name}` is given in the path; it cannot come from the query too")));
        }
        let value = typed(route.param_types.get(name), group.iter().map(|(_, v)| v.as_ref()));
        args.insert(name.clone().into_owned(), value);
    }
    if body.iter().all(u8::is_ascii_whitespace) || !matches!(route.rest.method.as_str(), "POST" | "PUT" | "PATCH") {
        return Ok(Value::Object(args));
    }
    let body: Value = serde_json::from_slice(body).map_err(|e| ArgsError(format!("the body is not JSON: {e}")))?;
    match &route.rest.body {
        Some(field) => {
            if args.insert(field.clone(), body).is_some() {
                return Err(ArgsError(format!("`{field}` is the body; it cannot come from the path or query too")));
            }
        }
        None => {
            let Value::Object(fields) = body else {
                return Err(ArgsError("the body must be a JSON object of the tool's arguments".into()));
            };
            for (name, value) in fields {
                if args.contains_key(&name) {
                    return Err(ArgsError(format!("`{name}` is given twice: in the body and the path or query")));
                }
                args.insert(name, value);
            }
        }
    }
    Ok(Value::Object(args))
}

/// The value of a parameter given as text, converted to its type.
fn typed<'a>(ty: ParamType, mut raws: impl ExactSizeIterator<Item = &'a str>) -> Value {
    if ty.array {
        Value::Array(raws.map(|r| convert(ty.kind, r)).collect())
    } else if raws.len() == 1 {
        convert(ty.kind, raws.next().unwrap_or_default())
    } else {
        Value::Array(raws.map(|r| Value::String(r.to_owned())).collect())
    }
}

fn convert(kind: Kind, raw: &str) -> Value {
    let converted = match kind {
        Kind::Integer => raw.parse::<i64>().map(Value::from).or_else(|_| raw.parse::<u64>().map(Value::from)).ok(),
        Kind::Number => raw.parse::<f64>().ok().filter(|f| f.is_finite()).map(numbers::number),
        Kind::Boolean => match raw {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        Kind::Json => serde_json::from_str(raw).ok(),
        Kind::Text => None,
    };
    converted.unwrap_or_else(|| Value::String(raw.to_owned()))
}

/// Follows a local `#/$defs/..` reference one step.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
        Some(pointer) => root.pointer(pointer).unwrap_or(schema),
        None => schema,
    }
}

/// The first non-null type a schema names, looking into `anyOf`/`oneOf` when it names none.
fn type_of(schema: &Value) -> &str {
    let named = match schema.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    };
    named
        .or_else(|| {
            ["anyOf", "oneOf"]
                .iter()
                .find_map(|k| schema.get(*k)?.as_array()?.iter().map(type_of).find(|t| *t != "null" && *t != "string"))
        })
        .unwrap_or("string")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tooltable::tool::{RestRoute, ToolDescriptor};

    use crate::rest::routes::{Resolution, Routes};

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "id": { "type": "integer" },
                "depth": { "type": ["integer", "null"] },
                "ratio": { "type": "number" },
                "deep": { "type": "boolean" },
                "paths": { "type": "array", "items": { "type": "string" } },
                "ids": { "type": "array", "items": { "type": "integer" } },
                "filter": { "$ref": "#/$defs/Filter" },
                "name": { "type": "string" },
                "mutations": { "type": "object" },
            },
            "$defs": { "Filter": { "type": "object" } }
        })
    }

    fn routes(method: &str, path: &str, body: Option<&str>) -> Routes {
        let mut d = ToolDescriptor::new("t", "d", schema());
        d.rest = Some(RestRoute {
            method: method.into(),
            path: path.into(),
            body: body.map(Into::into),
            status: 200,
            location: None,
        });
        Routes::new(&[d])
    }

    fn run(routes: &Routes, method: &str, path: &str, query: Option<&str>, body: &str) -> Result<Value, ArgsError> {
        let Resolution::Found(route, params) = routes.resolve(method, path) else { panic!("no route") };
        assemble(route, params, query, body.as_bytes())
    }

    #[test]
    fn query_values_take_the_schema_types() {
        let r = routes("GET", "/models/{id}", None);
        let q = "depth=2&ratio=0.5&deep=true&paths=%24.a&paths=%24.b&ids=1&ids=x&filter=%7B%22k%22%3A1%7D&name=42";
        let args = run(&r, "GET", "/models/7", Some(q), "").unwrap();
        assert_eq!(
            args,
            json!({ "id": 7, "depth": 2, "ratio": 0.5, "deep": true, "paths": ["$.a", "$.b"], "ids": [1, "x"], "filter": { "k": 1 }, "name": "42" })
        );
        let args = run(&r, "GET", "/models/abc", Some("deep=yes"), "").unwrap();
        assert_eq!(args, json!({ "id": "abc", "deep": "yes" }), "unconvertible values stay strings for validation");
    }

    #[test]
    fn the_body_is_the_arguments_or_one_field() {
        let r = routes("POST", "/models/{id}", None);
        assert_eq!(run(&r, "POST", "/models/1", None, r#"{"name":"n"}"#).unwrap(), json!({ "id": 1, "name": "n" }));
        assert!(run(&r, "POST", "/models/1", None, r#"{"id":2}"#).is_err());
        assert!(run(&r, "POST", "/models/1", None, "[1]").is_err());
        assert!(run(&r, "POST", "/models/1", None, "{").is_err());
        let r = routes("POST", "/models/{id}/mutations", Some("mutations"));
        let args = run(&r, "POST", "/models/1/mutations", Some("deep=false"), r#"{"$.a":1}"#).unwrap();
        assert_eq!(args, json!({ "id": 1, "deep": false, "mutations": { "$.a": 1 } }));
    }

    #[test]
    fn routes_match_the_most_specific_path_then_the_method() {
        let mut a = ToolDescriptor::new("by_id", "d", schema());
        a.rest = Some(RestRoute {
            method: "GET".into(),
            path: "/models/{id}".into(),
            body: None,
            status: 200,
            location: None,
        });
        let mut b = ToolDescriptor::new("count", "d", schema());
        b.rest = Some(RestRoute {
            method: "GET".into(),
            path: "/models/count".into(),
            body: None,
            status: 200,
            location: None,
        });
        let mut c = ToolDescriptor::new("delete", "d", schema());
        c.rest = Some(RestRoute {
            method: "DELETE".into(),
            path: "/models/{id}".into(),
            body: None,
            status: 200,
            location: None,
        });
        let routes = Routes::new(&[a, b, c]);
        assert!(matches!(routes.resolve("GET", "/models/count"), Resolution::Found(r, _) if r.tool == "count"));
        assert!(
            matches!(routes.resolve("GET", "/models/x%2Fy"), Resolution::Found(r, p) if r.tool == "by_id" && p["id"] == "x/y")
        );
        assert!(matches!(routes.resolve("PUT", "/models/1"), Resolution::WrongMethod(m) if m == ["DELETE", "GET"]));
        // The literal path is the path: it serves GET only, though `/models/{id}` has DELETE.
        assert!(matches!(routes.resolve("DELETE", "/models/count"), Resolution::WrongMethod(m) if m == ["GET"]));
        // An id spelt like the literal is still reachable, percent-encoded.
        assert!(
            matches!(routes.resolve("DELETE", "/models/%63ount"), Resolution::Found(r, p) if r.tool == "delete" && p["id"] == "count")
        );
        assert!(matches!(routes.resolve("GET", "/nothing"), Resolution::NotFound));
    }
}
