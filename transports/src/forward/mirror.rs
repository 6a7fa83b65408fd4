//! A server forwarding its own tools to another instance of itself: the descriptors, and
//! their order in the listing, stay the server's own; only the handlers change. The routes come
//! from the server's own OpenAPI document, built in process, so nothing is fetched at startup
//! and the server starts (its local tools working) while the remote is down.

use std::sync::Arc;

use serde_json::Value;
use tooltable::Server;

use super::updates::Updates;
use super::{ForwardError, Options, Remote};

/// What [`mirror`] set up: the tools it forwards, and the follower of the remote's updates
/// ([`Mirror::follow_updates`]).
#[derive(Debug)]
pub struct Mirror {
    /// The tools now forwarded, in listing order.
    pub forwarded: Vec<String>,
    updates: Updates,
}

impl Mirror {
    /// Follows the remote's resource updates, to run once the server is served, until the
    /// server's sessions are all gone and no subscription can come. It keeps one MCP session
    /// with the remote's `/mcp`, subscribed there to every resource a local session subscribes
    /// to (at most 1,000; a subscription past them is heard of only for changes made locally),
    /// and passes each update it hears on to the local subscribers. The session is opened at the
    /// first subscription, and again after the remote went away, backing off from 1 s to 30 s.
    pub async fn follow_updates<S: Send + Sync + 'static>(self, server: Server<S>) {
        self.updates.run(server).await;
    }
}

/// Replaces the handler of every tool of `server` that has a REST route, except the
/// server's [local tools](tooltable::server::Config::local_tools), by one that forwards the call to that
/// route at `base_url`. Call it right after the server is built, before it is served or cloned.
/// Subscriptions made locally are made at the remote too, so updates of its
/// resources, whoever caused them, reach the local subscribers (see [`Mirror::follow_updates`]).
///
/// ```
/// use tooltable::Server;
/// use tooltable_transports::forward::{Options, mirror};
///
/// let mut server = Server::builder(()).info("notes", "1.0.0").build()?;
/// // Nothing is fetched: the remote may be down, and the local tools work meanwhile.
/// let mirror = mirror(&mut server, "http://127.0.0.1:8080", Options::default())?;
/// assert!(mirror.forwarded.is_empty(), "this server has no tool with a REST route");
/// let runtime = tokio::runtime::Runtime::new()?;
/// runtime.spawn(mirror.follow_updates(server.clone()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mirror<S: Send + Sync + 'static>(
    server: &mut Server<S>,
    base_url: &str,
    options: Options,
) -> Result<Mirror, ForwardError> {
    let descriptors = server.table().descriptors();
    let document = crate::rest::openapi::document(server.info(), server.instructions(), &descriptors);
    let own = Value::Array(descriptors.iter().map(|d| d.to_mcp()).collect());
    let remote = Remote::from_document(base_url, &document, options)?.with_descriptors(own)?;
    let local = &server.config().local_tools;
    let mut tools: std::collections::HashMap<String, _> = remote
        .tools::<S>()
        .into_iter()
        .filter(|t| !local.contains(&t.descriptor.name))
        .map(|t| (t.descriptor.name, t.handler))
        .collect();
    let mut forwarded = Vec::new();
    for name in descriptors.into_iter().map(|d| d.name) {
        if let Some(handler) = tools.remove(&name) {
            server.replace_handler(&name, handler).map_err(ForwardError::Replace)?;
            forwarded.push(name);
        }
    }
    let (observer, updates) = super::updates::follower(Arc::clone(&remote.client), remote.hook.clone());
    if !server.observe_subscriptions(observer) {
        return Err(ForwardError::Replace(tooltable::server::ReplaceError::Shared));
    }
    Ok(Mirror { forwarded, updates })
}
