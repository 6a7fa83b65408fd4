//! Following the hub's capabilities: the list is fetched at start and whenever the hub's revision
//! moves (polled), and the tool table is changed to match, which tells every client its tool
//! list changed. While the hub is away the tools stay as they were; their calls fail with the
//! reason, and the list is fetched again when the hub is back.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use tooltable::tool::{DynamicTool, Output, ToolDescriptor};
use tooltable::{Error, Server};

use super::Bridge;
use super::client::HubError;
use super::flow_tools::{self, segment};
use super::names;

/// How often the hub's revision is checked.
pub const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// A capability as the hub lists it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Listed {
    pub id: String,
    #[serde(default)]
    pub description: String,
    pub input_schema: Value,
}

#[derive(Deserialize)]
struct Listing {
    revision: Value,
    capabilities: Vec<Value>,
}

/// What the bridge serves from the hub's last listing.
#[derive(Default)]
pub struct Served {
    revision: Option<Value>,
    /// Tool name → the capability behind it.
    tools: BTreeMap<String, Listed>,
    hub_was_away: bool,
}

/// Checks the hub every `every`, for ever.
pub async fn follow(server: Server<Bridge>, every: Duration) {
    loop {
        sync(&server).await;
        tokio::time::sleep(every).await;
    }
}

/// Fetches the listing and changes the table when the revision moved.
pub async fn sync(server: &Server<Bridge>) {
    let bridge = server.state();
    let listing = match fetch(bridge).await {
        Ok(listing) => listing,
        Err(e) => {
            let mut served = bridge.served();
            if !served.hub_was_away {
                tracing::warn!("{}; the capability tools stay as they were until it is back", e.message());
                served.hub_was_away = true;
            }
            return;
        }
    };
    let mut served = bridge.served();
    if std::mem::take(&mut served.hub_was_away) {
        tracing::info!("the hub answers again");
    }
    if served.revision.as_ref() == Some(&listing.0) {
        return;
    }
    let (names, collisions) = names::assign(listing.1.iter().map(|c| c.id.as_str()), &flow_tools::NAMES);
    for c in collisions {
        let given: Vec<String> = c.given.iter().map(|(id, name)| format!("{id:?} as {name}")).collect();
        tracing::warn!("capability ids collide on the tool name {}: serving {}", c.name, given.join(", "));
    }
    let by_id: BTreeMap<&str, &Listed> = listing.1.iter().map(|c| (c.id.as_str(), c)).collect();
    let wanted: BTreeMap<String, Listed> =
        names.into_iter().map(|(name, id)| (name, by_id[id.as_str()].clone())).collect();
    for name in served.tools.keys().filter(|n| !wanted.contains_key(*n)) {
        server.remove_tool(name);
    }
    let mut tools = BTreeMap::new();
    for (name, capability) in wanted {
        if served.tools.get(&name) == Some(&capability) {
            tools.insert(name, capability);
            continue;
        }
        match server.add_tool(tool(&name, &capability)) {
            Ok(()) => {
                tools.insert(name, capability);
            }
            Err(e) => {
                server.remove_tool(&name);
                tracing::warn!("capability {:?} is not served: {e}", capability.id);
            }
        }
    }
    served.tools = tools;
    served.revision = Some(listing.0);
}

/// The hub's revision and capabilities; an entry that is not a capability is logged and skipped.
async fn fetch(bridge: &Bridge) -> Result<(Value, Vec<Listed>), HubError> {
    let answer = bridge.hub.get("/v1/capabilities").await?;
    let hub = bridge.hub_label();
    let listing: Listing = serde_json::from_value(answer)
        .map_err(|e| HubError::garbage(&hub, format!("a capability list that does not follow the API: {e}")))?;
    let capabilities = listing
        .capabilities
        .into_iter()
        .filter_map(|c| match serde_json::from_value::<Listed>(c) {
            Ok(c) => Some(c),
            Err(e) => {
                tracing::warn!("the hub listed a capability that does not follow the API ({e}); skipped");
                None
            }
        })
        .collect();
    Ok((listing.revision, capabilities))
}

/// The tool that forwards calls to one capability.
fn tool(name: &str, capability: &Listed) -> DynamicTool<Bridge> {
    let mut descriptor = ToolDescriptor::new(name, capability.description.clone(), capability.input_schema.clone());
    descriptor.title = Some(capability.id.clone());
    let path = format!("/v1/capabilities/{}/call", segment(&capability.id));
    DynamicTool::new(descriptor, move |cx: tooltable::Cx<Bridge>, args: Value| {
        let path = path.clone();
        async move {
            let bridge = cx.state();
            match bridge.hub.post(&path, &args).await.and_then(|a| typed(&bridge.hub_label(), a)) {
                Ok((true, answer)) => Ok(Output::Json(answer)),
                Ok((false, answer)) => Err(Error { kind: tooltable::ErrorKind::Internal, body: answer }),
                Err(e) => Err(Error::from(e)),
            }
        }
    })
}

/// Whether a capability's answer is a success (`ok`, `abstain`) or not (`error`); an answer
/// without one of those statuses is garbage: the bridge never guesses a verdict.
fn typed(hub: &str, answer: Value) -> Result<(bool, Value), HubError> {
    match answer.get("status").and_then(Value::as_str) {
        Some("ok" | "abstain") if answer.is_object() => Ok((true, answer)),
        Some("error") => Ok((false, answer)),
        _ => Err(HubError::garbage(
            hub,
            format!("without a status of ok, abstain or error: {}", super::client::truncate(&answer.to_string())),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_three_statuses_are_answers() {
        assert!(typed("h", json!({ "status": "ok", "data": 1 })).unwrap().0);
        assert!(typed("h", json!({ "status": "abstain", "reason": "r" })).unwrap().0);
        assert!(!typed("h", json!({ "status": "error", "error": "e" })).unwrap().0);
        for bad in [json!({ "status": "maybe" }), json!({}), json!([1]), json!("ok")] {
            assert!(matches!(typed("h", bad), Err(HubError::Garbage { .. })));
        }
    }
}
