//! Connecting: the process started or the endpoint parsed, then the era settled. Unless one is
//! chosen, `server/discover` is sent with the 2026-07-28 `_meta`; a discovery result naming that
//! revision makes the connection stateless, a refusal of the version that lists only handshake
//! revisions, any other error or no answer (a server of the handshake revisions may ignore the
//! unknown request) makes it fall back to `initialize`, as the specification's probe says. A
//! server that cannot be reached is no fallback.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::runtime::Handle;
use tooltable::transport::HANDSHAKE_VERSIONS;
use tooltable::transport::jsonrpc::code;

use super::http::Endpoint;
use super::peer::{Link, Negotiated, Peer, STATELESS_VERSION};
use super::stdio::Process;
use super::{Call, ClientError, Era, Event, Options, Target};

/// The longest the probe waits for a server that may ignore it.
const PROBE_WAIT: Duration = Duration::from_secs(5);

pub(super) async fn connect(target: Target, options: Options) -> Result<Arc<Peer>, ClientError> {
    let runtime = Handle::current();
    let wait = options.connect_timeout;
    let peer = match target {
        Target::Command { program, args } => {
            let (process, pipes) = Process::spawn(&program, &args)?;
            let peer = Peer::new(Link::Stdio(process), options, runtime);
            pipes.run(&peer);
            peer
        }
        Target::Url(url) => {
            let endpoint = Endpoint::new(&url, &options)?;
            Peer::new(Link::Http(endpoint), options, runtime)
        }
    };
    let settled = match tokio::time::timeout(wait, settle(&peer)).await {
        Ok(settled) => settled,
        Err(_) => Err(ClientError::Timeout(wait)),
    };
    match settled {
        Ok(negotiated) => {
            let era = negotiated.era;
            let logging = negotiated.server.pointer("/capabilities/logging").is_some();
            let _ = peer.negotiated.set(negotiated);
            if era == Era::Handshake {
                if let Link::Http(_) = &peer.link {
                    Endpoint::open_stream(&peer);
                }
                if let Some(level) = peer.options.log_level.clone().filter(|_| logging) {
                    let peer = Arc::clone(&peer);
                    let params = json!({ "level": level });
                    // The answer changes nothing here; a refusal leaves the server's own level.
                    tokio::spawn(async move { drop(request(&peer, "logging/setLevel", params, wait).await) });
                }
            }
            Ok(peer)
        }
        Err(e) => {
            peer.close(format!("connecting failed: {e}"));
            if let Link::Stdio(process) = &peer.link {
                process.stop().await;
            }
            Err(e)
        }
    }
}

async fn settle(peer: &Arc<Peer>) -> Result<Negotiated, ClientError> {
    match peer.options.era {
        Some(Era::Handshake) => handshake(peer).await,
        Some(Era::Stateless) => match discover(peer).await? {
            Some(negotiated) => Ok(negotiated),
            None => Err(ClientError::Protocol(format!("the server does not speak revision {STATELESS_VERSION}"))),
        },
        None => match discover(peer).await? {
            Some(negotiated) => Ok(negotiated),
            None => handshake(peer).await,
        },
    }
}

/// `server/discover`: the connection's settings when the server speaks 2026-07-28, `None` when
/// it speaks the handshake revisions only.
async fn discover(peer: &Arc<Peer>) -> Result<Option<Negotiated>, ClientError> {
    peer.probe(true);
    let wait = PROBE_WAIT.min(peer.options.connect_timeout / 2);
    let outcome = request(peer, "server/discover", json!({}), wait).await;
    peer.probe(false);
    let supported = match outcome {
        Ok(result) => {
            let speaks = |v: &str| result["supportedVersions"].as_array().is_some_and(|s| s.iter().any(|x| x == v));
            if speaks(STATELESS_VERSION) {
                if let Link::Http(endpoint) = &peer.link {
                    endpoint.speak(true, Some(STATELESS_VERSION));
                }
                return Ok(Some(Negotiated { era: Era::Stateless, version: STATELESS_VERSION.into(), server: result }));
            }
            result["supportedVersions"].clone()
        }
        Err(ClientError::Rpc(e)) if e.code == code::UNSUPPORTED_PROTOCOL_VERSION => {
            e.data.as_ref().and_then(|d| d.get("supported")).cloned().unwrap_or(Value::Null)
        }
        Err(e @ (ClientError::Unreachable(_) | ClientError::Closed(_) | ClientError::InvalidTarget(_))) => {
            return Err(e);
        }
        // Any other error, or none in time: a server of the handshake revisions.
        Err(_) => return Ok(None),
    };
    let handshake = supported.as_array().is_some_and(|s| s.iter().any(|v| HANDSHAKE_VERSIONS.iter().any(|h| v == h)));
    match handshake {
        true => Ok(None),
        false => Err(ClientError::Protocol(format!("the server speaks none of this client's revisions: {supported}"))),
    }
}

/// `initialize`, then `notifications/initialized`.
async fn handshake(peer: &Arc<Peer>) -> Result<Negotiated, ClientError> {
    let options = &peer.options;
    let params = json!({
        "protocolVersion": HANDSHAKE_VERSIONS[0],
        "capabilities": options.capabilities,
        "clientInfo": { "name": options.name, "version": options.version },
    });
    let result = request(peer, "initialize", params, options.connect_timeout).await?;
    let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or_default().to_owned();
    if !HANDSHAKE_VERSIONS.contains(&version.as_str()) {
        return Err(ClientError::Protocol(format!(
            "the server offers revision {version:?}, which this client does not speak"
        )));
    }
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    match &peer.link {
        Link::Http(endpoint) => {
            endpoint.speak(false, Some(&version));
            endpoint.deliver(peer, &initialized).await?;
        }
        Link::Stdio(_) => peer.post(initialized),
    }
    Ok(Negotiated { era: Era::Handshake, version, server: result })
}

/// One request of the connection's own, its questions refused.
async fn request(peer: &Arc<Peer>, method: &str, params: Value, wait: Duration) -> Result<Value, ClientError> {
    let mut exchange = super::Exchange::start(peer, method, params, Call::default().timeout(wait));
    loop {
        match exchange.next().await {
            Event::Done(outcome) => return outcome,
            Event::Input(input) => {
                let refusal = tooltable::transport::jsonrpc::RpcError::method_not_found("input while connecting");
                exchange.answer(input, Err(refusal));
            }
            Event::Progress { .. } | Event::Log { .. } | Event::Notification(_) => {}
        }
    }
}
