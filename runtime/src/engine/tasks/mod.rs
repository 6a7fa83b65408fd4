//! Running tasks (the `io.modelcontextprotocol/tasks` extension, revision 2026-07-28): each one
//! a tokio task of its own, its state in the server's [`TaskStore`](crate::api::tasks::TaskStore);
//! the `Task` objects the wire shows.

mod run;
mod timestamp;
mod wire;

use serde_json::Value;

use crate::api::tasks::EXTENSION;
use crate::engine::jsonrpc::{RpcError, code};
use crate::engine::methods::tools::RequiredCapabilities;
use crate::engine::wire::member;

pub(crate) use run::{TaskScope, TaskWatchers, Tasks};
pub(crate) use wire::{DetailedTask, Task};

/// Whether a request's capabilities (2026-07-28 `_meta`) declare the extension.
pub(crate) fn declared(client_capabilities: &Value) -> bool {
    let extensions = client_capabilities.as_object().and_then(|c| member(c, "extensions"));
    extensions.and_then(Value::as_object).is_some_and(|e| member(e, EXTENSION).is_some())
}

/// -32021 for a request that needs the extension and did not declare it.
pub(crate) fn not_declared(what: &str) -> RpcError {
    let mut extension = serde_json::Map::new();
    extension.insert(EXTENSION.to_owned(), Value::Object(serde_json::Map::new()));
    let mut extensions = serde_json::Map::new();
    extensions.insert("extensions".to_owned(), Value::Object(extension));
    let data = RequiredCapabilities { required_capabilities: Value::Object(extensions) };
    RpcError::new(
        code::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("{what} needs the client capability extensions[\"{EXTENSION}\"], which the request did not declare"),
    )
    .with_data(crate::engine::wire::to_value(&data))
}
