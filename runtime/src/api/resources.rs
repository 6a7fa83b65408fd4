//! Resources a server offers: fixed URIs and URI templates (RFC 6570 level 1, `{name}` per
//! segment), each with the reader that serves it.
//!
//! ```
//! use tooltable::content::ResourceContents;
//! use tooltable::resources::{Resource, ResourceTemplate};
//! use tooltable::Server;
//!
//! let server = Server::builder(())
//!     .resource(Resource::new("notes://index", "index").mime_type("text/plain"), |_cx, req| async move {
//!         Ok(vec![ResourceContents::text(req.uri, "text/plain", "1, 2, 3")])
//!     })
//!     .resource_template(ResourceTemplate::new("notes://{id}", "note"), |_cx, req| async move {
//!         // The template's variables, as the URI matched them.
//!         let text = format!("note {}", req.params["id"]);
//!         Ok(vec![ResourceContents::text(req.uri, "text/plain", text)])
//!     })
//!     .build()?;
//! # let _ = server;
//! # Ok::<(), tooltable::tool::TableError>(())
//! ```

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use serde::Serialize;

use crate::api::content::ResourceContents;
use crate::api::context::Cx;
use crate::api::error::Error;
use crate::api::tool::BoxFuture;

/// A resource as `resources/list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// Its URI, what `resources/read` asks for.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Its title, for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its media type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

impl Resource {
    /// A resource with this URI and name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource { uri: uri.into(), name: name.into(), title: None, description: None, mime_type: None }
    }
    /// The same, with a description.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }
    /// The same, with a media type.
    pub fn mime_type(mut self, mime: impl Into<String>) -> Self {
        self.mime_type = Some(mime.into());
        self
    }
}

/// A resource template as `resources/templates/list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The URIs it serves, `{name}` standing for a segment.
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// Its title, for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What its resources hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Their media type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

impl ResourceTemplate {
    /// A template with this URI template and name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
        }
    }
    /// The same, with a description.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }
    /// The same, with a media type.
    pub fn mime_type(mut self, mime: impl Into<String>) -> Self {
        self.mime_type = Some(mime.into());
        self
    }
}

/// What a resource reader is asked: the URI, and the template variables it matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRequest {
    /// The URI asked for.
    pub uri: String,
    /// The template's variables, by name (none for a fixed resource).
    pub params: BTreeMap<String, String>,
}

pub(crate) type ReadHandler<S> =
    Arc<dyn Fn(Cx<S>, ResourceRequest) -> BoxFuture<'static, Result<Vec<ResourceContents>, Error>> + Send + Sync>;

pub(crate) fn read_handler<S, F, Fut>(f: F) -> ReadHandler<S>
where
    F: Fn(Cx<S>, ResourceRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<ResourceContents>, Error>> + Send + 'static,
{
    Arc::new(move |cx, req| Box::pin(f(cx, req)))
}

pub(crate) struct StaticResource<S> {
    pub resource: Resource,
    pub read: ReadHandler<S>,
}

pub(crate) struct TemplateResource<S> {
    pub template: ResourceTemplate,
    pub read: ReadHandler<S>,
}

/// Matches `uri` against a template whose variables each stand for a non-empty run of characters
/// other than `/`; gives the variables on a match.
pub(crate) fn match_template(template: &str, uri: &str) -> Option<BTreeMap<String, String>> {
    let mut params = BTreeMap::new();
    let mut rest = uri;
    let mut tpl = template;
    while !tpl.is_empty() {
        match tpl.find('{') {
            None => return (rest == tpl).then_some(params),
            Some(open) => {
                rest = rest.strip_prefix(&tpl[..open])?;
                let close = open + tpl[open..].find('}')?;
                let name = &tpl[open + 1..close];
                tpl = &tpl[close + 1..];
                // The variable ends where the next literal starts (or at a slash, or the end).
                let literal_end = tpl.find('{').unwrap_or(tpl.len());
                let next_literal = &tpl[..literal_end];
                let stop = match next_literal.chars().next() {
                    Some(c) => rest.find(c).unwrap_or(rest.len()),
                    None => rest.len(),
                };
                let value = &rest[..stop];
                if value.is_empty() || value.contains('/') {
                    return None;
                }
                params.insert(name.to_owned(), value.to_owned());
                rest = &rest[stop..];
            }
        }
    }
    rest.is_empty().then_some(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_whole_segments() {
        let p = match_template("test://template/{id}/data", "test://template/123/data").unwrap();
        assert_eq!(p.get("id").map(String::as_str), Some("123"));
        assert!(match_template("test://template/{id}/data", "test://template//data").is_none());
        assert!(match_template("test://template/{id}/data", "test://template/1/2/data").is_none());
        assert!(match_template("test://template/{id}/data", "test://template/1/datax").is_none());
        let p = match_template("valem://state/{modelId}", "valem://state/demo").unwrap();
        assert_eq!(p.get("modelId").map(String::as_str), Some("demo"));
        assert!(match_template("a://{x}.json", "a://b.json").is_some());
        assert!(match_template("a://fixed", "a://fixed").is_some());
    }
}
