//! The agent's side of the device flow: `POST /sandbox/pair` mints a pairing, `POST
//! /sandbox/pair/token {pairCode, deviceSecret}` polls it. A poll is answered 409
//! `authorization_pending` while the developer has not decided, 429 `slow_down` when it comes
//! sooner than `intervalSec` after the previous one, 200 `{sessionToken, namespaceId}` once
//! approved, and else a 4xx whose `error` says why it ended: 403 `access_denied`, 410
//! `expired_token`, 400 `invalid_grant` (no such pairing, or one already told its end).

use http::header::{HOST, HeaderValue, RETRY_AFTER};
use http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use super::pairings::{Denial, Full, Poll};
use super::reply::{self, Response};
use super::{PATH, Sandbox};

/// `POST /sandbox/pair`: a new pairing, its links built on the origin the request names.
pub fn mint(sandbox: &Sandbox, headers: &HeaderMap) -> Response {
    let Some(host) = reply::header(headers, HOST.as_str()).filter(|h| h.parse::<http::uri::Authority>().is_ok()) else {
        return reply::error(StatusCode::BAD_REQUEST, "invalid_request", "the request names no valid Host");
    };
    let now = sandbox.now();
    let minted = match sandbox.ledger().pairings.mint(now) {
        Ok(minted) => minted,
        Err(Full) => {
            let description = format!(
                "{} pairings are waiting already (--max-pairings); try again once one ends",
                sandbox.limits.max_pairings
            );
            return reply::error(StatusCode::SERVICE_UNAVAILABLE, "too_many_pairings", &description);
        }
    };
    let verification_uri = format!("http://{host}{PATH}/verify");
    reply::json(
        StatusCode::OK,
        &json!({
            "pairCode": minted.pair_code,
            "deviceSecret": minted.device_secret,
            "userCode": minted.user_code,
            "verificationUriComplete": format!("{verification_uri}#c={}", minted.user_code),
            "verificationUri": verification_uri,
            "expiresInSec": minted.expires_in.as_secs(),
            "intervalSec": minted.interval.as_secs(),
        }),
    )
}

/// `POST /sandbox/pair/token`.
pub fn poll(sandbox: &Sandbox, body: Result<Value, Response>) -> Response {
    let body = match body {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let field = |name: &str| body.get(name).and_then(Value::as_str);
    let (Some(pair_code), Some(device_secret)) = (field("pairCode"), field("deviceSecret")) else {
        return reply::error(StatusCode::BAD_REQUEST, "invalid_request", "give pairCode and deviceSecret, as minted");
    };
    let now = sandbox.now();
    let answer = sandbox.ledger().pairings.poll(pair_code, device_secret, now);
    let interval = sandbox.limits.pairing_interval_secs;
    match answer {
        Poll::Pending => reply::error(
            StatusCode::CONFLICT,
            "authorization_pending",
            "the developer has not approved the pairing yet",
        ),
        Poll::SlowDown => {
            let description = format!("poll at most every {interval} s");
            let mut response = reply::json(
                StatusCode::TOO_MANY_REQUESTS,
                &json!({ "error": "slow_down", "error_description": description, "intervalSec": interval }),
            );
            response.headers_mut().insert(RETRY_AFTER, HeaderValue::from(interval));
            response
        }
        Poll::Approved { session_token, namespace_id } => {
            reply::json(StatusCode::OK, &json!({ "sessionToken": session_token, "namespaceId": namespace_id }))
        }
        Poll::Denied(denial) => {
            let description = match denial {
                Denial::ByDeveloper => "the developer denied the pairing",
                Denial::TooManyWrongCodes => "too many wrong user codes were tried while the pairing waited",
            };
            reply::error(StatusCode::FORBIDDEN, "access_denied", description)
        }
        Poll::Expired => {
            reply::error(StatusCode::GONE, "expired_token", "the pairing expired before the developer approved it")
        }
        Poll::Unknown => reply::error(
            StatusCode::BAD_REQUEST,
            "invalid_grant",
            "no such pairing: never made, already told its end, or the device secret is not its own",
        ),
    }
}
