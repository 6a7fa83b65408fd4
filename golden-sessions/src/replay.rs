//! Replaying a session against a live server: send each `→` message, collect what comes back,
//! and compare it with the recorded `←` lines.

use std::time::Duration;

use serde_json::Value;

use crate::client::{Client, ClientError, is_response_to, request_id};
use crate::placeholders::Placeholders;
use crate::session::Step;

/// How long one answer may take.
const ANSWER: Duration = Duration::from_secs(10);
/// How long a step that expects no answer waits for an unexpected one.
const QUIET: Duration = Duration::from_millis(150);
/// How long a step waits for notifications it expects once its response has come (over HTTP they
/// travel on another stream).
const STRAGGLERS: Duration = Duration::from_secs(2);

/// What the server sent after each step, normalized, in the order it arrived.
pub async fn run(
    client: &mut Client,
    steps: &[Step],
    placeholders: &Placeholders,
) -> Result<Vec<Vec<Value>>, ClientError> {
    let mut actual = Vec::with_capacity(steps.len());
    for step in steps {
        client.send(&placeholders.fill(&step.sent)).await?;
        let expected = step.received.len();
        let mut got = Vec::new();
        let awaited = request_id(&step.sent);
        if let Some(id) = awaited {
            // Until the answer, or a question to the client, which the file answers next.
            while !answered(&got, id) && !asked(&got) {
                let msg = client.recv(ANSWER).await.ok_or_else(|| {
                    ClientError::Protocol(format!("no answer to line {} within {ANSWER:?}", step.line))
                })?;
                got.push(placeholders.normalize(&msg));
            }
        }
        // What the file expects beyond the answer may still be on its way (over HTTP,
        // notifications travel on another stream).
        let wait = if awaited.is_some() { STRAGGLERS } else { ANSWER };
        while got.len() < expected {
            match client.recv(wait).await {
                Some(msg) => got.push(placeholders.normalize(&msg)),
                None => break,
            }
        }
        // A notification that expects nothing: anything it causes shows within a quiet period.
        if awaited.is_none() && expected == 0 {
            while let Some(msg) = client.recv(QUIET).await {
                got.push(placeholders.normalize(&msg));
            }
        }
        actual.push(got);
    }
    Ok(actual)
}

/// Whether the response to `id` is among the messages.
fn answered(got: &[Value], id: &Value) -> bool {
    got.iter().any(|m| is_response_to(m, id))
}

/// Whether the server asked the client something: the session file answers it next.
fn asked(got: &[Value]) -> bool {
    got.last().is_some_and(|m| m.get("method").is_some() && m.get("id").is_some())
}

/// Whether a step's messages match, ignoring the order of those that travel on different streams.
pub fn matches(expected: &[Value], actual: &[Value]) -> bool {
    let key = |v: &Value| v.to_string();
    let mut e: Vec<String> = expected.iter().map(key).collect();
    let mut a: Vec<String> = actual.iter().map(key).collect();
    e.sort();
    a.sort();
    e == a
}
