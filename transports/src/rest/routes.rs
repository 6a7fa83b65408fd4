//! The REST routes of a table: each tool with a `rest` route, matched by method and path.

use std::collections::BTreeMap;

use tooltable::tool::{RestRoute, ToolDescriptor};

use super::args::ParamTypes;

/// One route: the tool it calls, its path split into segments, and how its arguments given as
/// text convert.
pub(crate) struct Route {
    pub tool: String,
    pub rest: RestRoute,
    pub param_types: ParamTypes,
    segments: Vec<Segment>,
}

enum Segment {
    Literal(String),
    Param(String),
}

/// What a request path and method resolve to.
pub(crate) enum Resolution<'a> {
    Found(&'a Route, BTreeMap<String, String>),
    /// The path exists, but not for this method: the methods it has.
    WrongMethod(Vec<&'a str>),
    NotFound,
}

pub(crate) struct Routes(Vec<Route>);

impl Routes {
    pub(crate) fn new(descriptors: &[ToolDescriptor]) -> Self {
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
                Some(Route { tool: d.name.clone(), rest, param_types: ParamTypes::of(&d.input_schema), segments })
            })
            .collect();
        Routes(routes)
    }

    /// Resolves a request as OpenAPI matches paths: first the path, then the method. Of the
    /// templates that match, the most specific wins (at the first segment where two differ, a
    /// literal beats a parameter), so `/models/count` beats `/models/{id}` whatever the
    /// declaration order, and `DELETE /models/count` is a wrong method, not a delete of `count`.
    pub(crate) fn resolve(&self, method: &str, path: &str) -> Resolution<'_> {
        let parts = request_segments(path);
        let Some(best) =
            self.0.iter().filter(|r| r.matches(&parts)).max_by(|a, b| a.literal_positions().cmp(b.literal_positions()))
        else {
            return Resolution::NotFound;
        };
        let on_path = || self.0.iter().filter(|r| r.same_template(best));
        if let Some(route) = on_path().find(|r| r.rest.method == method) {
            // A parameter that is not UTF-8 once decoded matches nothing.
            return match route.params(&parts) {
                Some(params) => Resolution::Found(route, params),
                None => Resolution::NotFound,
            };
        }
        let mut methods: Vec<&str> = on_path().map(|r| r.rest.method.as_str()).collect();
        methods.sort_unstable();
        methods.dedup();
        Resolution::WrongMethod(methods)
    }
}

impl Route {
    /// Which segments are literals, in order: compared, the more specific template is greater
    /// (an iterator, so that resolving a request allocates nothing for it).
    fn literal_positions(&self) -> impl Iterator<Item = bool> + '_ {
        self.segments.iter().map(|s| matches!(s, Segment::Literal(_)))
    }

    /// Whether two templates are one path: the same literals at the same places (parameter
    /// names may differ).
    fn same_template(&self, other: &Route) -> bool {
        self.segments.len() == other.segments.len()
            && self.segments.iter().zip(&other.segments).all(|pair| match pair {
                (Segment::Literal(a), Segment::Literal(b)) => a == b,
                (Segment::Param(_), Segment::Param(_)) => true,
                _ => false,
            })
    }

    /// Whether the literal segments match: the parameters are read only for the route chosen.
    fn matches(&self, parts: &[&str]) -> bool {
        parts.len() == self.segments.len()
            && self.segments.iter().zip(parts).all(|(seg, part)| match seg {
                Segment::Literal(l) => l == part,
                Segment::Param(_) => true,
            })
    }

    fn params(&self, parts: &[&str]) -> Option<BTreeMap<String, String>> {
        let mut params = BTreeMap::new();
        for (seg, part) in self.segments.iter().zip(parts) {
            // An empty segment is an argument left out (`/models//blobs/b`): optional, or refused
            // by the inputSchema as missing.
            if let Segment::Param(name) = seg
                && !part.is_empty()
            {
                params.insert(name.clone(), percent_decode(part)?);
            }
        }
        Some(params)
    }
}

/// A request path's segments, an empty one inside kept (it is an argument left out); leading and
/// trailing slashes are not segments.
fn request_segments(path: &str) -> Vec<&str> {
    let inner = path.trim_start_matches('/').trim_end_matches('/');
    if inner.is_empty() { Vec::new() } else { inner.split('/').collect() }
}

fn split(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|s| !s.is_empty())
}

/// Decodes a path segment; `None` for one that is not UTF-8 once decoded.
fn percent_decode(segment: &str) -> Option<String> {
    percent_encoding::percent_decode_str(segment).decode_utf8().ok().map(|s| s.into_owned())
}
