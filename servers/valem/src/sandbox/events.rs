//! `GET /sandbox/api/models/{id}/events`: a model page's live updates, as server-sent events.
//! Every change of the model's state, whoever made it, is an `event: changed`; its deletion an
//! `event: deleted`, which ends the stream. An idle stream sends a keepalive comment every 15 s
//! and ends once its session has, and at once when the model is deleted. A session holds at most `--max-page-streams` streams; a
//! client that reads nothing for as long as a keepalive's period is let go.

use std::sync::Arc;

use bytes::Bytes;
use http::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use http::{HeaderMap, StatusCode};
use http_body_util::BodyExt as _;
use http_body_util::channel::{Channel, Sender};
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use super::Sandbox;
use super::api::session;
use super::limits::STREAM_KEEPALIVE;
use super::reply::{self, Response};
use crate::namespace;

/// `GET /sandbox/api/models/{id}/events`.
pub async fn stream(sandbox: &Arc<Sandbox>, headers: &HeaderMap, id: &str) -> Response {
    let access = match session(sandbox, headers) {
        Ok(access) => access,
        Err(refused) => return refused,
    };
    let model = namespace::qualified(&access.namespace_id, id);
    // Subscribed before the model is looked up, so that no change between the two is missed.
    let changes = sandbox.server.state().changes();
    if sandbox.call(&access.namespace_id, "get_model_info", json!({ "id": model })).await.is_err() {
        return reply::error(StatusCode::NOT_FOUND, "not_found", &format!("there is no model {id:?} in this session"));
    }
    let Some(slot) = Slot::take(sandbox, &access.namespace_id) else {
        let description = format!(
            "{} live pages are open in this session already (--max-page-streams)",
            sandbox.limits.max_page_streams
        );
        return reply::error(StatusCode::TOO_MANY_REQUESTS, "too_many_streams", &description);
    };
    let (sender, body) = Channel::new(4);
    tokio::spawn(follow(slot, model, changes, sender));
    let mut response = http::Response::new(body.boxed());
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Passes the model's changes on until the model, the session or the client is gone.
async fn follow(
    slot: Slot,
    model: String,
    mut changes: tokio::sync::broadcast::Receiver<String>,
    mut sender: Sender<Bytes>,
) {
    const CHANGED: &[u8] = b"event: changed\ndata: {}\n\n";
    if !send(&mut sender, b": following\n\n").await {
        return;
    }
    // An interval, not a sleep per event: the changes of other models do not put it off.
    let mut keepalive = tokio::time::interval_at(tokio::time::Instant::now() + STREAM_KEEPALIVE, STREAM_KEEPALIVE);
    loop {
        let event: &'static [u8] = tokio::select! {
            change = changes.recv() => match change {
                Ok(id) if id == model => match slot.sandbox.call(&slot.namespace_id, "get_model_info", json!({ "id": model })).await {
                    Ok(_) => CHANGED,
                    Err(_) => b"event: deleted\ndata: {}\n\n",
                },
                Ok(_) => continue,
                // Some changes were missed: one of them may have been this model's.
                Err(RecvError::Lagged(_)) => CHANGED,
                Err(RecvError::Closed) => return,
            },
            _ = keepalive.tick() => {
                if !slot.session_alive() {
                    return;
                }
                b": keepalive\n\n"
            }
        };
        if !send(&mut sender, event).await || event.starts_with(b"event: deleted") {
            return;
        }
    }
}

/// Sends one event; false once the client is gone or has read nothing for a keepalive's time.
async fn send(sender: &mut Sender<Bytes>, event: &'static [u8]) -> bool {
    matches!(tokio::time::timeout(STREAM_KEEPALIVE, sender.send_data(Bytes::from_static(event))).await, Ok(Ok(())))
}

/// One of a session's streams, given back when dropped.
struct Slot {
    sandbox: Arc<Sandbox>,
    namespace_id: String,
}

impl Slot {
    fn take(sandbox: &Arc<Sandbox>, namespace_id: &str) -> Option<Slot> {
        let mut streams = sandbox.streams.lock().unwrap_or_else(|p| p.into_inner());
        let open = streams.entry(namespace_id.to_owned()).or_default();
        if *open >= sandbox.limits.max_page_streams {
            return None;
        }
        *open += 1;
        Some(Slot { sandbox: Arc::clone(sandbox), namespace_id: namespace_id.to_owned() })
    }

    fn session_alive(&self) -> bool {
        let now = self.sandbox.now();
        self.sandbox.ledger().sessions.alive(&self.namespace_id, now)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut streams = self.sandbox.streams.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(open) = streams.get_mut(&self.namespace_id) {
            *open -= 1;
            if *open == 0 {
                streams.remove(&self.namespace_id);
            }
        }
    }
}
