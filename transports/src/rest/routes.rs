//! The REST routes of a table: each operation with a `rest` route, matched by method and path.

use std::collections::BTreeMap;

use tooltable::{RestRoute, ToolDescriptor};

/// One route: the tool it calls and its path split into segments.
pub struct Route {
    pub tool: String,
    pub rest: RestRoute,
    segments: Vec<Segment>,
}

enum Segment {
    Literal(String),
    Param(String),
}

/// What a request path and method resolve to.
pub enum Resolution<'a> {
    Found(&'a Route, BTreeMap<String, String>),
    /// The path exists, but not for this method: the methods it has.
    WrongMethod(Vec<&'a str>),
    NotFound,
}

pub struct Routes(Vec<Route>);

impl Routes {
    pub fn new(descriptors: &[ToolDescriptor]) -> Self {
        let routes = descriptors
            .iter()
            .filter_map(|d| {
                let rest = d.rest.clone()?;
                let segments = split(&rest.path)
                    .map(|seg| match seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                        Some(name) => Segment::Param(name.to_owned()),
                        None => Segment::Literal(seg.to_owned()),
                    })
                    .collect();
                Some(Route { tool: d.name.clone(), rest, segments })
            })
            .collect();
        Routes(routes)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Route> {
        self.0.iter()
    }

    /// Resolves a request. Literal segments win over parameters, so `/models/count` beats
    /// `/models/{id}` whatever the declaration order.
    pub fn resolve(&self, method: &str, path: &str) -> Resolution<'_> {
        let parts: Vec<&str> = split(path).collect();
        let mut matching: Vec<(&Route, BTreeMap<String, String>)> =
            self.0.iter().filter_map(|r| r.match_path(&parts).map(|p| (r, p))).collect();
        matching.sort_by_key(|(r, _)| r.param_count());
        if let Some(i) = matching.iter().position(|(r, _)| r.rest.method == method) {
            let (route, params) = matching.swap_remove(i);
            return Resolution::Found(route, params);
        }
        if matching.is_empty() {
            return Resolution::NotFound;
        }
        let mut methods: Vec<&str> = matching.iter().map(|(r, _)| r.rest.method.as_str()).collect();
        methods.sort_unstable();
        methods.dedup();
        Resolution::WrongMethod(methods)
    }
}

impl Route {
    fn param_count(&self) -> usize {
        self.segments.iter().filter(|s| matches!(s, Segment::Param(_))).count()
    }

    fn match_path(&self, parts: &[&str]) -> Option<BTreeMap<String, String>> {
        if parts.len() != self.segments.len() {
            return None;
        }
        let mut params = BTreeMap::new();
        for (seg, part) in self.segments.iter().zip(parts) {
            match seg {
                Segment::Literal(l) if l == part => {}
                Segment::Literal(_) => return None,
                Segment::Param(name) => {
                    let value = percent_decode(part)?;
                    params.insert(name.clone(), value);
                }
            }
        }
        Some(params)
    }
}

fn split(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|s| !s.is_empty())
}

/// Decodes a path segment; `None` for one that is not UTF-8 once decoded.
fn percent_decode(segment: &str) -> Option<String> {
    percent_encoding::percent_decode_str(segment).decode_utf8().ok().map(|s| s.into_owned())
}
