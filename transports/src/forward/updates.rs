//! Following a remote instance's resource updates: one MCP session at its `/mcp` (Streamable
//! HTTP, revision 2025-06-18), subscribed there to every resource a local session subscribes to;
//! each `notifications/resources/updated` heard on its event stream is passed on to the local
//! subscribers. The session opens at the first subscription, and again after the remote went
//! away (every subscription made again), backing off from 1 s to 30 s between attempts. A
//! [`Hook`] names the resources at the remote, adds the session's headers, and opens the session
//! again when those change.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::Method;
use hyper::header::{ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot, watch};
use tooltable::Server;
use tooltable::server::SubscriptionObserver;

use super::client::Client;
use super::hook::Hook;

/// The most resources followed at once; a subscription past it is heard of locally only.
const MAX_FOLLOWED: usize = 1_000;

const SESSION: HeaderName = HeaderName::from_static("mcp-session-id");
const VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const REVISION: &str = "2025-06-18";
const FIRST_RETRY: Duration = Duration::from_secs(1);
const LAST_RETRY: Duration = Duration::from_secs(30);

/// The follower of a remote's resource updates that [`mirror`](super::mirror) sets up (see
/// [`Mirror::follow_updates`](super::Mirror::follow_updates)).
#[derive(Debug)]
pub(crate) struct Updates {
    client: Arc<Client>,
    wanted: mpsc::UnboundedReceiver<Wanted>,
    hook: Option<Arc<dyn Hook>>,
}

/// A resource to follow, and who waits until it is followed at the remote (or could not be):
/// dropping the sender is the answer.
type Wanted = (String, oneshot::Sender<()>);

/// The observer to give the local server, and the follower that hears what it observed. A local
/// `resources/subscribe` is answered once the remote subscription is made (or has failed), so a
/// change made right after it is heard of.
pub(crate) fn follower(client: Arc<Client>, hook: Option<Arc<dyn Hook>>) -> (SubscriptionObserver, Updates) {
    let (tell, wanted) = mpsc::unbounded_channel();
    let observer: SubscriptionObserver = Arc::new(move |uri: String| {
        let (done, followed) = oneshot::channel();
        let _ = tell.send((uri, done));
        Box::pin(async move {
            let _ = followed.await;
        })
    });
    (observer, Updates { client, wanted, hook })
}

/// Why a session with the remote ended.
enum Ended {
    /// It failed; logged, then the session is opened again after a pause.
    Failed(String),
    /// The hook's names or headers changed: the session is opened again at once.
    Changed,
    /// The server closed: no subscription can come.
    Closed,
}

impl Updates {
    /// Follows the remote until the server's sessions are all gone and no subscription can come.
    pub(crate) async fn run<S: Send + Sync + 'static>(mut self, server: Server<S>) {
        let mut followed: BTreeSet<String> = BTreeSet::new();
        let mut waiting = Vec::new();
        let mut retry = FIRST_RETRY;
        let mut changes = self.hook.as_ref().and_then(|h| h.changes());
        loop {
            // Nothing to follow at the remote yet: a subscription is answered at once.
            while !followed.iter().any(|uri| self.remote(uri).is_some()) {
                waiting.clear();
                tokio::select! {
                    wanted = self.wanted.recv() => match wanted {
                        Some((uri, done)) => {
                            follow(&mut followed, uri);
                            waiting.push(done);
                        }
                        None => return,
                    },
                    changed = changed(&mut changes) => if !changed { changes = None },
                }
            }
            let why = match self
                .session(&server, &mut followed, std::mem::take(&mut waiting), &mut retry, &mut changes)
                .await
            {
                Ended::Failed(why) => why,
                Ended::Changed => continue,
                Ended::Closed => return,
            };
            tracing::warn!("following {}: {why}; trying again in {retry:?}", self.client.base.url("/mcp"));
            // While the remote is away, a subscription is recorded for the next session and
            // answered at once: there is nothing to wait for.
            let pause = tokio::time::sleep(retry);
            tokio::pin!(pause);
            loop {
                tokio::select! {
                    () = &mut pause => break,
                    wanted = self.wanted.recv() => match wanted {
                        Some((uri, _done)) => follow(&mut followed, uri),
                        None => return,
                    },
                    changed = changed(&mut changes) => if changed { break } else { changes = None },
                }
            }
            retry = (retry * 2).min(LAST_RETRY);
        }
    }

    /// The remote's URI of a local one; `None`: not followed there.
    fn remote(&self, local: &str) -> Option<String> {
        match &self.hook {
            Some(hook) => hook.remote_uri(local),
            None => Some(local.to_owned()),
        }
    }

    /// One session: opened, subscribed, then listened to until it ends.
    async fn session<S: Send + Sync + 'static>(
        &mut self,
        server: &Server<S>,
        followed: &mut BTreeSet<String>,
        waiting: Vec<oneshot::Sender<()>>,
        retry: &mut Duration,
        changes: &mut Option<watch::Receiver<()>>,
    ) -> Ended {
        let own: Vec<(HeaderName, HeaderValue)> = self.hook.as_ref().map(|h| h.session_headers()).unwrap_or_default();
        let initialize = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": REVISION, "capabilities": {},
            "clientInfo": { "name": server.info().name, "version": server.info().version },
        }});
        let first = [&[json_body()][..], &own].concat();
        let answer = match self.client.send_with(&Method::POST, "/mcp", Some(&initialize), &first).await {
            Ok(answer) if answer.status == 200 => answer,
            Ok(answer) => return Ended::Failed(format!("initialize was answered {}", answer.status)),
            Err(failure) => return Ended::Failed(failure.error),
        };
        let Some(session) = answer.headers.get(SESSION).cloned() else {
            return Ended::Failed("no session id was given".into());
        };
        let session = [(SESSION, session), (VERSION, HeaderValue::from_static(REVISION))];
        let headers = [&first[..], &session].concat();
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        if let Err(failure) = self.client.send_with(&Method::POST, "/mcp", Some(&initialized), &headers).await {
            return Ended::Failed(failure.error);
        }
        let accept = (ACCEPT, HeaderValue::from_static("text/event-stream"));
        let stream_headers = [&[accept][..], &own, &session].concat();
        let mut stream = match self.client.open(&Method::GET, "/mcp", None, &stream_headers).await {
            Ok(stream) if stream.status == 200 => stream,
            Ok(stream) => return Ended::Failed(format!("the event stream was answered {}", stream.status)),
            Err(failure) => return Ended::Failed(failure.error),
        };
        for uri in followed.iter().filter_map(|uri| self.remote(uri)) {
            if let Err(ended) = self.subscribe(&uri, &headers).await {
                return Ended::Failed(ended);
            }
        }
        drop(waiting);
        *retry = FIRST_RETRY;
        let mut events = Events::default();
        loop {
            tokio::select! {
                frame = stream.body.frame() => match frame {
                    Some(Ok(frame)) => {
                        let Ok(data) = frame.into_data() else { continue };
                        match events.feed(&data, self.client.max_response_bytes) {
                            Ok(updated) => updated.iter().filter_map(|uri| self.local(uri)).for_each(|uri| server.resource_updated(&uri)),
                            Err(ended) => return Ended::Failed(ended),
                        }
                    }
                    Some(Err(e)) => return Ended::Failed(format!("the event stream broke: {e}")),
                    None => return Ended::Failed("the event stream ended".into()),
                },
                wanted = self.wanted.recv() => match wanted {
                    Some((uri, _done)) if !followed.contains(&uri) && followed.len() < MAX_FOLLOWED => {
                        let subscribed = match self.remote(&uri) {
                            Some(remote) => self.subscribe(&remote, &headers).await,
                            None => Ok(()),
                        };
                        follow(followed, uri);
                        if let Err(ended) = subscribed {
                            return Ended::Failed(ended);
                        }
                    }
                    Some((uri, _done)) => follow(followed, uri),
                    None => return Ended::Closed,
                },
                changed = changed(changes) => match changed {
                    true => return Ended::Changed,
                    false => *changes = None,
                },
            }
        }
    }

    /// The local URI of a remote one; `None`: none of ours.
    fn local(&self, remote: &str) -> Option<String> {
        match &self.hook {
            Some(hook) => hook.local_uri(remote),
            None => Some(remote.to_owned()),
        }
    }

    async fn subscribe(&self, uri: &str, headers: &[(HeaderName, HeaderValue)]) -> Result<(), String> {
        let request = json!({ "jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": { "uri": uri } });
        match self.client.send_with(&Method::POST, "/mcp", Some(&request), headers).await {
            Ok(answer) if answer.status == 200 => Ok(()),
            Ok(answer) => Err(format!("subscribing to {uri} was answered {}", answer.status)),
            Err(failure) => Err(failure.error),
        }
    }
}

/// Whether the hook's names changed (`false`: it can tell no more); never, without a hook.
async fn changed(changes: &mut Option<watch::Receiver<()>>) -> bool {
    match changes {
        Some(changes) => changes.changed().await.is_ok(),
        None => std::future::pending().await,
    }
}

fn json_body() -> (HeaderName, HeaderValue) {
    (CONTENT_TYPE, HeaderValue::from_static("application/json"))
}

fn follow(followed: &mut BTreeSet<String>, uri: String) {
    if followed.len() < MAX_FOLLOWED {
        followed.insert(uri);
    } else if !followed.contains(&uri) {
        tracing::warn!("already following {MAX_FOLLOWED} resources; updates of {uri} made elsewhere are not heard");
    }
}

/// The updates an event stream announces, read from whole events only.
#[derive(Debug, Default)]
struct Events(crate::client::sse::Parser);

impl Events {
    /// The URIs the complete events fed so far say were updated.
    fn feed(&mut self, data: &[u8], bound: usize) -> Result<Vec<String>, String> {
        let events = self.0.feed(data, bound).map_err(|_| format!("an event of more than {bound} bytes"))?;
        let messages = events.iter().filter_map(|data| serde_json::from_str::<Value>(data).ok());
        let updates = messages.filter(|m| m["method"] == "notifications/resources/updated");
        Ok(updates.filter_map(|m| m["params"]["uri"].as_str().map(str::to_owned)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_are_read_from_whole_events_only() {
        let mut events = Events::default();
        let update = r#"data: {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"a://1"}}"#;
        let first = format!("id: 1\n{update}\n\n: keepalive\n\n{}", &update[..20]);
        assert_eq!(events.feed(first.as_bytes(), 1024).unwrap(), ["a://1"]);
        let rest = format!("{}\n\ndata: {{\"method\":\"notifications/message\"}}\n\n", &update[20..]);
        assert_eq!(events.feed(rest.as_bytes(), 1024).unwrap(), ["a://1"]);
        assert!(events.feed(&[b'x'; 100], 64).is_err(), "an unfinished event is bounded");
    }
}
