//! The bridge: an MCP server over stdio whose tools are the hub's capabilities (one each,
//! followed as the hub reloads) and the four flow tools, every call forwarded to the hub.

pub mod client;
pub mod discovery;
pub mod flow_tools;
pub mod names;
pub mod sync;

use std::sync::{Mutex, MutexGuard};

use tooltable::tool::TableError;
use tooltable::{Server, table};

use client::HubClient;

/// The bridge's state: its client of the hub, what it serves, and whether live drafts are allowed.
pub struct Bridge {
    pub hub: HubClient,
    pub allow_live: bool,
    served: Mutex<sync::Served>,
}

impl Bridge {
    pub fn new(hub: HubClient, allow_live: bool) -> Self {
        Bridge { hub, allow_live, served: Mutex::default() }
    }

    fn served(&self) -> MutexGuard<'_, sync::Served> {
        self.served.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The hub's address for messages (`?` when the discovery file cannot be read).
    fn hub_label(&self) -> String {
        self.hub.addr_label()
    }
}

pub fn server(bridge: Bridge) -> Result<Server<Bridge>, TableError> {
    Server::builder(bridge)
        .info("bridge", env!("CARGO_PKG_VERSION"))
        .instructions(
            "Every capability the hub has loaded is a tool (its id with characters outside letters, digits, _ and - \
             replaced by _); a result's status is ok, abstain or error, and only error is a failed call. \
             jevalan_run_flow, jevalan_list_flows, jevalan_validate_flow and jevalan_try_draft work with flows; \
             nothing here saves, edits or deletes a flow.",
        )
        .tools(table![
            flow_tools::jevalan_run_flow,
            flow_tools::jevalan_list_flows,
            flow_tools::jevalan_validate_flow,
            flow_tools::jevalan_try_draft,
        ])
        .build()
}
