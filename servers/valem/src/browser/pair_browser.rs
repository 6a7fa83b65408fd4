//! `pair_browser`: pairs the agent with the developer's browser session. It mints a pairing (or
//! resumes the one already minted), then waits at most `--pair-wait-secs` (and no longer than
//! the pairing lives): it polls, sends the developer the link once as a URL elicitation when the
//! client takes one (`capabilities.elicitation.url`), reports progress, and sleeps the pairing's
//! interval in 250 ms steps. A cancelled call stops within a step and keeps the pairing.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tooltable::tool::{Annotations, DynamicTool, Output, ToolDescriptor};
use tooltable::{Cx, Error, ErrorKind};

use super::Link;
use super::pairing::{self, Pending, Polled};
use crate::tools::registry::Models;
use std::sync::Arc;

/// The tool's description: what to show the developer, and that a second call resumes.
const DESCRIPTION: &str = "Pairs this agent with the developer's browser session in the Valem sandbox, so that both \
    work on the same models: the developer sees each model as a form, edits it, and you hear of every edit. Show \
    the developer `verificationUriComplete` (or else `verificationUri` and `userCode`) and ask them to open it and \
    click Approve; the call waits for that a while. When it answers `pending`, call pair_browser again: it resumes \
    the same pairing. `already_paired` means there is nothing left to do.";

/// The slices the wait sleeps in: a cancellation is seen within one.
const STEP: Duration = Duration::from_millis(250);
/// What RFC 8628 adds to the interval after each `slow_down`.
const SLOWER: Duration = Duration::from_secs(5);

/// The tool, working on `link`'s pairing.
pub fn tool(link: Arc<Link>) -> DynamicTool<Models> {
    DynamicTool::new(descriptor(), move |cx, _args| {
        let link = Arc::clone(&link);
        async move { pair(&cx, &link).await }
    })
}

fn descriptor() -> ToolDescriptor {
    let mut descriptor =
        ToolDescriptor::new("pair_browser", DESCRIPTION, json!({ "type": "object", "properties": {} }));
    descriptor.title = Some("Pair with browser".into());
    let no = Some(false);
    descriptor.annotations = Annotations { read_only: no, destructive: no, idempotent: no, open_world: no };
    descriptor
}

async fn pair(cx: &Cx<Models>, link: &Link) -> Result<Output, Error> {
    if let Some((namespace_id, _)) = link.session() {
        return answer(json!({ "status": "already_paired", "namespaceId": namespace_id }));
    }
    let mut pending = match link.pending_or_mint().await {
        Ok(pending) => pending,
        Err(message) => return Err(Error::new(ErrorKind::Internal, message)),
    };
    let started = Instant::now();
    let total = link.wait.min(pending.expires_at.saturating_duration_since(started));
    let deadline = started + total;
    let mut elicitation: Option<tooltable::transport::BoxFuture<'static, ()>> = None;
    let mut elicited = false;
    loop {
        if let Some(last) = pending.last_poll {
            // A resumed pairing may have been polled just now: its interval is left first.
            if !sleep_until((last + pending.interval).min(deadline), cx, &mut elicitation).await {
                // The session sends no response to a cancelled request; the pairing is kept.
                return Err(Error::new(ErrorKind::Internal, "cancelled"));
            }
            if Instant::now() >= deadline {
                return answer(still_pending(&pending));
            }
        }
        let polled = pairing::poll(&link.client, &pending).await;
        pending.last_poll = Some(Instant::now());
        match polled {
            Ok(Polled::Pending) => {}
            Ok(Polled::SlowDown) => pending.interval += SLOWER,
            Ok(Polled::Paired { session_token, namespace_id }) => {
                link.pair(session_token, namespace_id.clone());
                if let Some(id) = &pending.elicitation_id {
                    cx.elicitation_complete(id);
                }
                return answer(json!({ "status": "paired", "namespaceId": namespace_id }));
            }
            Ok(Polled::Ended(error)) => {
                link.forget_pending();
                let message = format!("Pairing failed ({error}) — call pair_browser again for a fresh link.");
                return Err(Error::new(ErrorKind::Conflict, message));
            }
            Err(failure) => {
                link.keep_pending(&pending);
                let message = format!("The pairing could not be polled: {} — call pair_browser again.", failure.error);
                return Err(Error::new(ErrorKind::Internal, message));
            }
        }
        if !elicited && takes_url_elicitation(cx) {
            elicited = true;
            let id = crate::sandbox::secrets::random_text(16);
            pending.elicitation_id = Some(id.clone());
            let message = format!(
                "Open this link in your browser and click Approve to pair this agent with your Valem sandbox \
                 session. The confirmation code shown there should read {}.",
                pending.user_code
            );
            let (cx, url) = (cx.clone(), pending.verification_uri_complete.clone());
            // Its answer changes nothing: the pairing's poll says what the developer did.
            elicitation = Some(Box::pin(async move {
                let _ = cx.elicit_url(&message, &url, &id).await;
            }));
        }
        link.keep_pending(&pending);
        let elapsed = started.elapsed();
        if elapsed >= total {
            return answer(still_pending(&pending));
        }
        let (elapsed, total) = (elapsed.as_secs(), total.as_secs());
        let message = format!("Waiting for browser approval ({elapsed}/{total}s)");
        cx.progress(elapsed as f64, Some(total as f64), Some(&message));
    }
}

/// Sleeps until `until` in steps, driving the elicitation meanwhile (once done, it is dropped);
/// false when the call was cancelled.
async fn sleep_until(
    until: Instant,
    cx: &Cx<Models>,
    elicitation: &mut Option<tooltable::transport::BoxFuture<'static, ()>>,
) -> bool {
    while !cx.is_cancelled() {
        let now = Instant::now();
        if now >= until {
            return true;
        }
        let step = tokio::time::sleep(STEP.min(until - now));
        match elicitation {
            Some(asking) => tokio::select! {
                () = step => {}
                () = asking => *elicitation = None,
            },
            None => step.await,
        }
    }
    false
}

fn takes_url_elicitation(cx: &Cx<Models>) -> bool {
    cx.client_capabilities().get("elicitation").and_then(|e| e.get("url")).is_some()
}

fn still_pending(pending: &Pending) -> Value {
    let left = pending.expires_at.saturating_duration_since(Instant::now());
    json!({
        "status": "pending",
        "verificationUri": pending.verification_uri,
        "verificationUriComplete": pending.verification_uri_complete,
        "userCode": pending.user_code,
        "expiresInSec": left.as_secs(),
    })
}

fn answer(value: Value) -> Result<Output, Error> {
    Ok(Output::Json(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_descriptor_is_the_originals() {
        assert_eq!(
            descriptor().to_mcp(),
            json!({
                "name": "pair_browser",
                "title": "Pair with browser",
                "description": DESCRIPTION,
                "inputSchema": { "type": "object", "properties": {} },
                "annotations": { "readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false },
            })
        );
    }
}
