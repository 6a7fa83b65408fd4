//! The `Location` of a success response (`#[tool(location = "/models/{id}")]`): the route's
//! template, each `{name}` filled with the result's field of that name as one path segment
//! (percent-encoded, a dot segment too, so no value can point elsewhere).

use hyper::header::HeaderValue;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

/// Everything but the unreserved characters of RFC 3986.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// `prefix` and `template` filled from `result`; `None` when the result lacks a field the
/// template names, or holds one that is not a string or a number.
pub(crate) fn location(prefix: &str, template: &str, result: &Value) -> Option<HeaderValue> {
    let mut path = prefix.to_owned();
    for segment in template.split('/').skip(1) {
        path.push('/');
        match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            None => path.push_str(segment),
            Some(name) => {
                let value = match result.get(name)? {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    _ => return None,
                };
                push_segment(&mut path, &value);
            }
        }
    }
    HeaderValue::from_str(&path).ok()
}

/// Appends `value` as one path segment: percent-encoded, and a dot segment (which would move
/// the path elsewhere) as a value.
pub(crate) fn push_segment(path: &mut String, value: &str) {
    match value {
        "." => path.push_str("%2E"),
        ".." => path.push_str("%2E%2E"),
        _ => path.extend(utf8_percent_encode(value, SEGMENT)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_template_is_filled_from_the_result() {
        let at = |prefix, template, result| location(prefix, template, &result).map(|v| v.to_str().unwrap().to_owned());
        assert_eq!(at("", "/models/{id}", json!({ "id": "order", "version": "1" })).as_deref(), Some("/models/order"));
        assert_eq!(
            at("/api", "/models/{id}/v/{n}", json!({ "id": "a b/c", "n": 2 })).as_deref(),
            Some("/api/models/a%20b%2Fc/v/2")
        );
        assert_eq!(at("", "/models/{id}", json!({ "id": ".." })).as_deref(), Some("/models/%2E%2E"));
        assert_eq!(at("", "/models/{id}", json!({ "name": "x" })), None, "a field missing");
        assert_eq!(at("", "/models/{id}", json!({ "id": null })), None, "not a string or a number");
    }
}
