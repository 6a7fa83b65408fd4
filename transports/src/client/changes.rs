//! Following what changes at the server: its lists and the resources subscribed to. Under a
//! handshake revision the notifications come on the session's own channel (stdout, or the GET
//! stream over HTTP) and a resource is subscribed to with `resources/subscribe`; under 2026-07-28
//! a `subscriptions/listen` carries them, acknowledged before the follower is handed out.

use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, watch};

use super::{Call, Client, ClientError, Era, Event, Exchange, Notification};

/// A listen has no deadline of its own: it lasts as long as the connection.
const LISTEN_LASTS: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// What to hear of.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Watch {
    /// `notifications/tools/list_changed`.
    pub tools: bool,
    /// `notifications/prompts/list_changed`.
    pub prompts: bool,
    /// `notifications/resources/list_changed`.
    pub resources: bool,
    /// `notifications/resources/updated` of these URIs.
    pub updates: Vec<String>,
}

impl Watch {
    /// The notifications a session sends that this watch asked for.
    fn wants(&self, notification: &Notification) -> bool {
        match notification.method.as_str() {
            "notifications/tools/list_changed" => self.tools,
            "notifications/prompts/list_changed" => self.prompts,
            "notifications/resources/list_changed" => self.resources,
            "notifications/resources/updated" => notification
                .params
                .get("uri")
                .and_then(Value::as_str)
                .is_some_and(|uri| self.updates.iter().any(|u| u == uri)),
            _ => false,
        }
    }

    /// The `notifications` filter of `subscriptions/listen`.
    fn filter(&self) -> Value {
        let mut filter = Map::new();
        for (key, on) in [
            ("toolsListChanged", self.tools),
            ("promptsListChanged", self.prompts),
            ("resourcesListChanged", self.resources),
        ] {
            if on {
                filter.insert(key.into(), json!(true));
            }
        }
        if !self.updates.is_empty() {
            filter.insert("resourceSubscriptions".into(), json!(self.updates));
        }
        Value::Object(filter)
    }
}

/// The changes a [`Watch`] asked for, as they come.
#[derive(Debug)]
pub struct Changes {
    watch: Watch,
    source: Source,
}

#[derive(Debug)]
enum Source {
    Session { notifications: mpsc::UnboundedReceiver<Notification>, closed: watch::Receiver<Option<String>> },
    Listen { exchange: Box<Exchange>, acknowledged: Value },
}

impl Changes {
    pub(super) async fn open(client: &Client, watch: Watch) -> Result<Changes, ClientError> {
        if client.era() == Era::Handshake {
            let notifications = client.peer.follow();
            for uri in &watch.updates {
                client.request("resources/subscribe", json!({ "uri": uri })).await?;
            }
            let closed = client.peer.watch_closed();
            return Ok(Changes { watch, source: Source::Session { notifications, closed } });
        }
        let params = json!({ "notifications": watch.filter() });
        let mut exchange = client.start("subscriptions/listen", params, Call::default().timeout(LISTEN_LASTS));
        // The acknowledgment comes first: nothing is missed once the follower is handed out.
        loop {
            match exchange.next().await {
                Event::Notification(n) if n.method == "notifications/subscriptions/acknowledged" => {
                    let acknowledged = n.params.get("notifications").cloned().unwrap_or_else(|| json!({}));
                    return Ok(Changes {
                        watch,
                        source: Source::Listen { exchange: Box::new(exchange), acknowledged },
                    });
                }
                Event::Done(Ok(_)) => return Err(ClientError::Closed("the server ended the subscription".into())),
                Event::Done(Err(e)) => return Err(e),
                Event::Input(input) => exchange.answer(input, Err(refusal())),
                _ => {}
            }
        }
    }

    /// What the server agreed to send under 2026-07-28 (the acknowledged filter); under a
    /// handshake, what was asked.
    pub fn acknowledged(&self) -> Value {
        match &self.source {
            Source::Listen { acknowledged, .. } => acknowledged.clone(),
            Source::Session { .. } => self.watch.filter(),
        }
    }

    /// The next change; an error once no more can come (the connection or the listen ended).
    pub async fn next(&mut self) -> Result<Notification, ClientError> {
        match &mut self.source {
            Source::Session { notifications, closed } => loop {
                match notifications.recv().await {
                    Some(n) if self.watch.wants(&n) => return Ok(n),
                    Some(_) => {}
                    None => {
                        let reason = closed.borrow_and_update().clone();
                        return Err(ClientError::Closed(reason.unwrap_or_else(|| "the connection ended".into())));
                    }
                }
            },
            Source::Listen { exchange, .. } => loop {
                match exchange.next().await {
                    Event::Notification(n) if n.method != "notifications/subscriptions/acknowledged" => return Ok(n),
                    Event::Done(Ok(_)) => return Err(ClientError::Closed("the server ended the subscription".into())),
                    Event::Done(Err(e)) => return Err(e),
                    Event::Input(input) => exchange.answer(input, Err(refusal())),
                    _ => {}
                }
            },
        }
    }
}

fn refusal() -> tooltable::transport::jsonrpc::RpcError {
    tooltable::transport::jsonrpc::RpcError::invalid_request("a subscription takes no input")
}
