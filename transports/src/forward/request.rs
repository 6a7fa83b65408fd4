//! The request one call makes: the path template filled (each value percent-encoded as one
//! segment, dot segments included, so no value can move the request to another path), the query string (scalars as text, arrays repeated, objects as JSON text: what the
//! REST transport reads back), and the JSON body.

use hyper::Method;
use serde_json::{Map, Value};

use crate::rest::location::push_segment;

/// Which arguments of a call make its JSON request body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum BodyShape {
    /// No body.
    None,
    /// The body is an object of these arguments.
    Fields(Vec<String>),
    /// The body is the value of this one argument.
    Whole(String),
}

/// The request one operation of the document makes, which a call's arguments fill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RequestTemplate {
    /// The operation's HTTP method.
    pub(super) method: Method,
    /// The path with `{name}` placeholders, as the document writes it.
    pub(super) path: String,
    /// The arguments sent as query parameters, by name.
    pub(super) query: Vec<String>,
    /// The arguments that make the body.
    pub(super) body: BodyShape,
}

impl RequestTemplate {
    /// The path and query string, and the body, of a call with these (validated) arguments.
    pub(super) fn fill(&self, args: &Map<String, Value>) -> (String, Option<Value>) {
        let mut target = String::with_capacity(self.path.len());
        let mut rest = self.path.as_str();
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}').map(|c| open + c) else { break };
            target.push_str(&rest[..open]);
            let value = args.get(&rest[open + 1..close]).map(text).unwrap_or_default();
            push_segment(&mut target, &value);
            rest = &rest[close + 1..];
        }
        target.push_str(rest);

        let mut query = form_urlencoded::Serializer::new(String::new());
        for name in &self.query {
            match args.get(name) {
                None | Some(Value::Null) => {}
                Some(Value::Array(items)) => {
                    items.iter().for_each(|item| {
                        query.append_pair(name, &text(item));
                    });
                }
                Some(value) => {
                    query.append_pair(name, &text(value));
                }
            }
        }
        let query = query.finish();
        if !query.is_empty() {
            target.push('?');
            target.push_str(&query);
        }

        let body = match &self.body {
            BodyShape::None => None,
            BodyShape::Whole(name) => args.get(name).cloned(),
            BodyShape::Fields(names) => {
                Some(Value::Object(names.iter().filter_map(|n| Some((n.clone(), args.get(n)?.clone()))).collect()))
            }
        };
        (target, body)
    }
}

/// A value as the text of a path segment or query value: a string as it is, anything else as JSON.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn template(body: BodyShape) -> RequestTemplate {
        RequestTemplate {
            method: Method::POST,
            path: "/models/{id}/runs/{n}".into(),
            query: vec!["paths".into(), "deep".into(), "depth".into(), "filter".into()],
            body,
        }
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn path_values_are_encoded_and_query_values_are_text() {
        let a = args(json!({
            "id": "a b/c?", "n": 3, "paths": ["$.a", "$.b"], "deep": true, "depth": null,
            "filter": { "k": "v" }, "price": 10,
        }));
        let (target, body) = template(BodyShape::Fields(vec!["price".into(), "absent".into()])).fill(&a);
        assert_eq!(
            target,
            "/models/a%20b%2Fc%3F/runs/3?paths=%24.a&paths=%24.b&deep=true&filter=%7B%22k%22%3A%22v%22%7D"
        );
        assert_eq!(body, Some(json!({ "price": 10 })));
    }

    #[test]
    fn a_dot_segment_stays_a_value() {
        let a = args(json!({ "id": "..", "n": "." }));
        assert_eq!(template(BodyShape::None).fill(&a).0, "/models/%2E%2E/runs/%2E");
        let a = args(json!({ "id": "a.b", "n": "...", }));
        assert_eq!(template(BodyShape::None).fill(&a).0, "/models/a.b/runs/...");
    }

    #[test]
    fn the_whole_body_is_one_argument() {
        let a = args(json!({ "id": "m", "n": 1, "body": [1, 2] }));
        assert_eq!(
            template(BodyShape::Whole("body".into())).fill(&a),
            ("/models/m/runs/1".into(), Some(json!([1, 2])))
        );
        assert_eq!(template(BodyShape::None).fill(&a).1, None);
    }
}
