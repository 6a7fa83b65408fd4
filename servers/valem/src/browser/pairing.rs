//! The agent's two requests of the device flow, to the sandbox of the `valem serve --sandbox` it
//! forwards to: `POST /sandbox/pair` mints a pairing, `POST /sandbox/pair/token` polls it.

use std::time::{Duration, Instant};

use http::Method;
use serde_json::{Value, json};
use tooltable_transports::forward::{Answer, Client, RemoteFailure};

/// A pairing minted and not yet ended.
#[derive(Debug, Clone)]
pub struct Pending {
    pub pair_code: String,
    pub device_secret: String,
    pub user_code: String,
    pub verification_uri: String,
    pub verification_uri_complete: String,
    pub expires_at: Instant,
    /// The time to leave between two polls (RFC 8628: 5 s more after each `slow_down`).
    pub interval: Duration,
    pub last_poll: Option<Instant>,
    /// The URL elicitation sent for it, whose completion is told once it is paired.
    pub elicitation_id: Option<String>,
}

/// What a poll learned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Polled {
    Pending,
    SlowDown,
    Paired {
        session_token: String,
        namespace_id: String,
    },
    /// The pairing ended without a session: the sandbox's `error` (`access_denied`,
    /// `expired_token`, `invalid_grant`, ...).
    Ended(String),
}

/// Mints a pairing; the error is the tool's message: `HTTP <status> — <hint>`, never the page a
/// proxy may have answered with.
pub async fn mint(client: &Client) -> Result<Pending, String> {
    let unreachable = "the server is unreachable or starting";
    let answer = match client.send(&Method::POST, "/sandbox/pair", None).await {
        Ok(answer) => answer,
        Err(failure) => return Err(format!("Cannot reach {} — {unreachable} ({})", client.url(""), failure.error)),
    };
    let body: Option<Value> = serde_json::from_slice(&answer.body).ok();
    if !(200..300).contains(&answer.status) {
        let hint = if answer.status >= 500 { unreachable } else { "it refused the pairing request" };
        let said = body.as_ref().and_then(|b| b.get("error_description").or(b.get("error"))).and_then(Value::as_str);
        return Err(match said {
            Some(said) => format!("HTTP {} — {hint} ({said})", answer.status),
            None => format!("HTTP {} — {hint}", answer.status),
        });
    }
    read_minted(body.as_ref()).ok_or_else(|| format!("HTTP {} — the server's answer is no pairing", answer.status))
}

fn read_minted(body: Option<&Value>) -> Option<Pending> {
    let body = body?;
    let text = |name: &str| body.get(name).and_then(Value::as_str).map(str::to_owned);
    let seconds = |name: &str| body.get(name).and_then(Value::as_u64).map(Duration::from_secs);
    Some(Pending {
        pair_code: text("pairCode")?,
        device_secret: text("deviceSecret")?,
        user_code: text("userCode")?,
        verification_uri: text("verificationUri")?,
        verification_uri_complete: text("verificationUriComplete")?,
        expires_at: Instant::now() + seconds("expiresInSec")?,
        interval: seconds("intervalSec")?.max(Duration::from_secs(1)),
        last_poll: None,
        elicitation_id: None,
    })
}

/// Polls `pending` once.
pub async fn poll(client: &Client, pending: &Pending) -> Result<Polled, RemoteFailure> {
    let body = json!({ "pairCode": pending.pair_code, "deviceSecret": pending.device_secret });
    let answer = client.send(&Method::POST, "/sandbox/pair/token", Some(&body)).await?;
    Ok(read_polled(&answer))
}

fn read_polled(answer: &Answer) -> Polled {
    let body: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
    let text = |name: &str| body.get(name).and_then(Value::as_str).map(str::to_owned);
    let error = text("error");
    match (answer.status, error.as_deref()) {
        (_, Some("slow_down")) => Polled::SlowDown,
        (409, _) => Polled::Pending,
        (200..=299, _) => match (text("sessionToken"), text("namespaceId")) {
            (Some(session_token), Some(namespace_id)) => Polled::Paired { session_token, namespace_id },
            _ => Polled::Ended("the server's answer holds no session".into()),
        },
        (status, error) => Polled::Ended(error.map_or_else(|| format!("HTTP {status}"), str::to_owned)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, body: Value) -> Answer {
        Answer { status, headers: Default::default(), body: body.to_string().into() }
    }

    #[test]
    fn poll_answers_are_read_as_the_device_flow_has_them() {
        assert_eq!(read_polled(&answer(409, json!({ "error": "authorization_pending" }))), Polled::Pending);
        assert_eq!(read_polled(&answer(429, json!({ "error": "slow_down" }))), Polled::SlowDown);
        assert_eq!(read_polled(&answer(409, json!({ "error": "slow_down" }))), Polled::SlowDown);
        assert_eq!(
            read_polled(&answer(200, json!({ "sessionToken": "t", "namespaceId": "s1" }))),
            Polled::Paired { session_token: "t".into(), namespace_id: "s1".into() }
        );
        assert_eq!(
            read_polled(&answer(403, json!({ "error": "access_denied" }))),
            Polled::Ended("access_denied".into())
        );
        assert_eq!(read_polled(&answer(502, Value::Null)), Polled::Ended("HTTP 502".into()));
        assert_eq!(read_polled(&answer(200, json!({}))), Polled::Ended("the server's answer holds no session".into()));
    }

    #[test]
    fn a_minted_pairing_needs_every_field() {
        let minted = json!({
            "pairCode": "p", "deviceSecret": "d", "userCode": "BCDF-GHJK", "verificationUri": "http://h/sandbox/verify",
            "verificationUriComplete": "http://h/sandbox/verify#c=BCDF-GHJK", "expiresInSec": 600, "intervalSec": 5,
        });
        let pending = read_minted(Some(&minted)).unwrap();
        assert_eq!((pending.user_code.as_str(), pending.interval), ("BCDF-GHJK", Duration::from_secs(5)));
        let mut partial = minted.clone();
        partial.as_object_mut().unwrap().remove("deviceSecret");
        assert!(read_minted(Some(&partial)).is_none());
    }
}
