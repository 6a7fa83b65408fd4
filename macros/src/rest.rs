//! The `rest = "METHOD /path/{param}"` route.

use syn::{Error, Ident, LitStr};

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/// A checked route. Its errors can only point at the whole string literal, so `lit` is kept
/// for the expansion's field checks, which point there too.
pub(crate) struct Route {
    pub(crate) lit: LitStr,
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) params: Vec<String>,
}

impl Route {
    /// Whether a request with this method carries a JSON body.
    pub(crate) fn has_body(&self) -> bool {
        matches!(self.method.as_str(), "POST" | "PUT" | "PATCH")
    }
}

/// Parses the route, pushing every problem found (not just the first).
pub(crate) fn parse(lit: LitStr, errors: &mut Vec<Error>) -> Option<Route> {
    let text = lit.value();
    let before = errors.len();
    let mut err = |msg: String| errors.push(Error::new(lit.span(), msg));

    let parts: Vec<&str> = text.split_whitespace().collect();
    let [method, path] = parts[..] else {
        err(format!("`rest` is a method and a path, e.g. `\"GET /models/{{id}}\"`; got `{text}`"));
        return None;
    };
    if !METHODS.contains(&method) {
        err(format!("unknown HTTP method `{method}`: use GET, POST, PUT, PATCH or DELETE"));
    }

    let params = template(path, "an argument", &mut err);
    (errors.len() == before).then(|| Route { method: method.to_owned(), path: path.to_owned(), params, lit })
}

/// Checks `location = "/models/{id}"`: a path whose `{name}` segments the result's fields fill.
pub(crate) fn parse_location(lit: LitStr, errors: &mut Vec<Error>) -> Option<LitStr> {
    let before = errors.len();
    template(&lit.value(), "a result", &mut |msg| errors.push(Error::new(lit.span(), msg)));
    (errors.len() == before).then_some(lit)
}

/// The `{name}` parameters of a path template, each a whole segment naming `whose` field (an
/// argument's, or a result's); every problem is given to `err`.
fn template(path: &str, whose: &str, err: &mut dyn FnMut(String)) -> Vec<String> {
    if !path.starts_with('/') {
        err(format!("the path `{path}` must start with `/`"));
    }
    let mut params: Vec<String> = Vec::new();
    // The root path `/` is the one path whose only segment is empty.
    let segments = path.strip_prefix('/').unwrap_or(path);
    for segment in segments.split('/').filter(|_| !segments.is_empty()) {
        if segment.is_empty() {
            err(format!("the path `{path}` has an empty segment"));
        } else if let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            if !is_field_name(name) {
                err(format!("path parameter `{{{name}}}` must be {whose} field: a Rust identifier"));
            } else if params.iter().any(|p| p == name) {
                err(format!("path parameter `{{{name}}}` appears twice"));
            } else {
                params.push(name.to_owned());
            }
        } else if segment.contains(['{', '}']) {
            err(format!("`{segment}`: a path parameter must be a whole segment, like `/{{id}}/`"));
        }
    }
    params
}

/// Whether `name` can be written as a field access `args.name` (keywords and `r#` excluded).
pub(crate) fn is_field_name(name: &str) -> bool {
    !name.starts_with("r#") && syn::parse_str::<Ident>(name).is_ok()
}
