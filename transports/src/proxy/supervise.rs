//! The connection's thread: connect, list the tools, follow the upstream until the connection
//! ends or stops answering, then connect again after a pause that doubles up to a bound. It
//! ends when the proxy is stopped or the server is dropped, and takes the upstream's tools with
//! it.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tooltable::server::WeakServer;

use super::tools::Installed;
use super::{Shared, Status};
use crate::client::{Call, Changes, Client, ClientError, Event, Notification, Target, Watch};
use tooltable::context::Era;

/// Runs the proxy on a thread of its own, with a runtime of its own.
pub(super) fn spawn<S: Send + Sync + 'static>(
    server: WeakServer<S>,
    shared: Arc<Shared>,
    target: Target,
) -> std::io::Result<()> {
    let name = format!("proxy {}", shared.name);
    std::thread::Builder::new().name(name).spawn(move || {
        match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(runtime) => runtime.block_on(supervise(server, &shared, target)),
            Err(e) => shared.set(Err(format!("no runtime: {e}")), Status::Down { reason: format!("no runtime: {e}") }),
        }
    })?;
    Ok(())
}

async fn supervise<S: Send + Sync + 'static>(server: WeakServer<S>, shared: &Arc<Shared>, target: Target) {
    let mut installed = Installed::default();
    let mut retry = shared.options.first_retry;
    while !shared.stopping() {
        let why = match Client::connect(target.clone(), shared.options.client.clone()).await {
            Ok(client) => {
                let client = Arc::new(client);
                let why = follow(&server, shared, &client, &mut installed, &mut retry).await;
                client.close().await;
                why
            }
            Err(e) => e.to_string(),
        };
        if shared.stopping() || server.upgrade().is_none() {
            break;
        }
        match shared.status() {
            Status::Down { .. } => {
                tracing::debug!("upstream {} ({}) is still unavailable: {why}", shared.name, shared.target)
            }
            _ => tracing::warn!("upstream {} ({}) is unavailable: {why}", shared.name, shared.target),
        }
        shared.set(Err(why.clone()), Status::Down { reason: why });
        tokio::select! {
            () = tokio::time::sleep(retry) => {}
            () = shared.stop.notified() => {}
        }
        retry = (retry * 2).min(shared.options.last_retry);
    }
    if let Some(server) = server.upgrade() {
        installed.clear(&server);
    }
    shared.set(Err("the proxy was stopped".into()), Status::Stopped);
}

/// Serves the upstream while it answers; why it stopped.
async fn follow<S: Send + Sync + 'static>(
    server: &WeakServer<S>,
    shared: &Arc<Shared>,
    client: &Arc<Client>,
    installed: &mut Installed,
    retry: &mut Duration,
) -> String {
    let follows = client.server_capabilities().pointer("/tools/listChanged").and_then(|v| v.as_bool()) == Some(true);
    // Listening before listing, so that no change in between is missed.
    let mut changes = match follows {
        true => match client.changes(Watch { tools: true, ..Watch::default() }).await {
            Ok(changes) => Some(changes),
            Err(e) => return format!("following its tools failed: {e}"),
        },
        false => None,
    };
    if let Err(why) = list(server, shared, client, installed).await {
        return why;
    }
    *retry = shared.options.first_retry;
    tracing::info!("upstream {} ({}) is connected ({:?})", shared.name, shared.target, client.era());
    let mut probe = tokio::time::interval(shared.options.probe_every);
    probe.tick().await;
    loop {
        tokio::select! {
            change = next_change(&mut changes) => match change {
                Ok(_) => {
                    if let Err(why) = list(server, shared, client, installed).await {
                        return why;
                    }
                }
                Err(e) => return e.to_string(),
            },
            why = client.closed() => return why,
            _ = probe.tick() => {
                if server.upgrade().is_none() {
                    return "the server is gone".into();
                }
                if let Err(why) = probe_once(shared, client).await {
                    return why;
                }
            }
            () = shared.suspect.notified() => {
                if let Err(why) = probe_once(shared, client).await {
                    return why;
                }
            }
            () = shared.stop.notified() => return "the proxy was stopped".into(),
        }
        if shared.stopping() {
            return "the proxy was stopped".into();
        }
    }
}

/// Reads the upstream's tools and serves them.
async fn list<S: Send + Sync + 'static>(
    server: &WeakServer<S>,
    shared: &Arc<Shared>,
    client: &Arc<Client>,
    installed: &mut Installed,
) -> Result<(), String> {
    let tools = client.list_tools().await.map_err(|e| format!("listing its tools failed: {e}"))?;
    let server = server.upgrade().ok_or("the server is gone")?;
    let tools = installed.sync(&server, shared, &tools);
    shared.set(Ok(Arc::clone(client)), Status::Up { era: client.era(), tools });
    Ok(())
}

async fn next_change(changes: &mut Option<Changes>) -> Result<Notification, ClientError> {
    match changes {
        Some(changes) => changes.next().await,
        None => std::future::pending().await,
    }
}

/// Whether the upstream answers: `ping`, or `server/discover` under 2026-07-28 (which has no ping).
async fn probe_once(shared: &Shared, client: &Client) -> Result<(), String> {
    let method = match client.era() {
        Era::Handshake => "ping",
        Era::Stateless => "server/discover",
    };
    let mut exchange = client.start(method, json!({}), Call::default().timeout(shared.options.probe_timeout));
    loop {
        match exchange.next().await {
            Event::Done(Ok(_)) => return Ok(()),
            Event::Done(Err(e)) => return Err(format!("it did not answer {method}: {e}")),
            _ => {}
        }
    }
}
