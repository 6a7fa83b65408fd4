//! What the server says of itself: its capabilities (in `initialize` and `server/discover`), and
//! `server/discover` (revision 2026-07-28): the versions, capabilities and instructions.

use serde::Serialize;

use crate::api::descriptor::TaskSupport;
use crate::engine::era::SUPPORTED_VERSIONS;
use crate::engine::server::Server;
use crate::engine::wire::Empty;

/// The capabilities the server really has: resources, prompts and completions when registered.
/// Tool changes and resource updates reach a stateless client through `subscriptions/listen`.
#[derive(Debug, Serialize)]
pub(crate) struct ServerCapabilities {
    tools: ListChanged,
    #[serde(skip_serializing_if = "Option::is_none")]
    resources: Option<ResourcesCapability>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompts: Option<ListChanged>,
    #[serde(skip_serializing_if = "Option::is_none")]
    completions: Option<Empty>,
    logging: Empty,
    #[serde(skip_serializing_if = "Option::is_none")]
    extensions: Option<Extensions>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ListChanged {
    list_changed: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourcesCapability {
    subscribe: bool,
    list_changed: bool,
}

/// The extensions the server speaks (`server/discover` only).
#[derive(Debug, Serialize)]
struct Extensions {
    #[serde(rename = "io.modelcontextprotocol/tasks")]
    tasks: Empty,
}

impl ServerCapabilities {
    /// What `server` has; with `extensions`, the tasks extension when a tool declares it.
    pub(crate) fn of<S: Send + Sync + 'static>(server: &Server<S>, extensions: bool) -> Self {
        let tasks =
            extensions && server.table().entries().iter().any(|e| e.descriptor.task_support != TaskSupport::Forbidden);
        ServerCapabilities {
            tools: ListChanged { list_changed: true },
            resources: server.has_resources().then_some(ResourcesCapability { subscribe: true, list_changed: false }),
            prompts: (!server.prompts().is_empty()).then_some(ListChanged { list_changed: false }),
            completions: server.has_completion().then_some(Empty {}),
            logging: Empty {},
            extensions: tasks.then_some(Extensions { tasks: Empty {} }),
        }
    }
}

/// The result of `server/discover`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DiscoverResult<'a> {
    supported_versions: [&'static str; 5],
    capabilities: ServerCapabilities,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
}

/// `server/discover`.
pub(crate) fn discover<S: Send + Sync + 'static>(server: &Server<S>) -> DiscoverResult<'_> {
    DiscoverResult {
        supported_versions: SUPPORTED_VERSIONS,
        capabilities: ServerCapabilities::of(server, true),
        instructions: server.instructions(),
    }
}
