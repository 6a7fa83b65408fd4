//! The developer's side of the device flow, from the verification page: `POST /sandbox/approve`
//! and `POST /sandbox/deny`, each `{userCode}` with the page's CSRF token. Approving opens the
//! session, sets its browser cookie (HttpOnly, SameSite=Strict) and leaves the agent's token for
//! its next poll.

use http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use super::pairings::Refusal;
use super::reply::{self, Response};
use super::{PATH, SESSION_COOKIE, Sandbox, csrf, sessions};

/// `POST /sandbox/approve {userCode}`.
pub fn approve(sandbox: &Sandbox, headers: &HeaderMap, body: Result<Value, Response>) -> Response {
    let (pair_code, mut ledger) = match waiting(sandbox, headers, body) {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    let opened = match ledger.sessions.open(sandbox.now()) {
        Ok(opened) => opened,
        Err(sessions::Full) => {
            let description = format!(
                "{} sandbox sessions are open already (--max-sandbox-sessions)",
                sandbox.limits.max_sandbox_sessions
            );
            return reply::error(StatusCode::SERVICE_UNAVAILABLE, "too_many_sessions", &description);
        }
    };
    ledger.pairings.approve(&pair_code, opened.agent_token, opened.namespace_id.clone());
    drop(ledger);
    let mut response =
        reply::json(StatusCode::OK, &json!({ "namespaceId": opened.namespace_id, "sessionPage": format!("{PATH}/") }));
    reply::set_cookie(&mut response, SESSION_COOKIE, &opened.browser_token);
    response
}

/// `POST /sandbox/deny {userCode}`.
pub fn deny(sandbox: &Sandbox, headers: &HeaderMap, body: Result<Value, Response>) -> Response {
    match waiting(sandbox, headers, body) {
        Ok((pair_code, mut ledger)) => {
            ledger.pairings.deny(&pair_code);
            reply::json(StatusCode::OK, &json!({ "denied": true }))
        }
        Err(refused) => refused,
    }
}

/// The waiting pairing of the request's user code, with the ledger still locked so that the
/// decision follows the check.
fn waiting<'s>(
    sandbox: &'s Sandbox,
    headers: &HeaderMap,
    body: Result<Value, Response>,
) -> Result<(String, std::sync::MutexGuard<'s, super::Ledger>), Response> {
    csrf::check(headers)?;
    let body = body?;
    let Some(typed) = body.get("userCode").and_then(Value::as_str) else {
        return Err(reply::error(StatusCode::BAD_REQUEST, "invalid_request", "give the userCode the page shows"));
    };
    let now = sandbox.now();
    let mut ledger = sandbox.ledger();
    match ledger.pairings.waiting(typed, now) {
        Ok(pair_code) => Ok((pair_code, ledger)),
        Err(refusal) => Err(match refusal {
            Refusal::Malformed => reply::error(
                StatusCode::BAD_REQUEST,
                "invalid_user_code",
                "a code is 8 letters, shown as XXXX-XXXX: check what you typed",
            ),
            Refusal::Wrong => reply::error(
                StatusCode::NOT_FOUND,
                "invalid_user_code",
                "no pairing waits with this code: check it against the one your agent shows",
            ),
            Refusal::Expired => reply::error(
                StatusCode::GONE,
                "expired_token",
                "this pairing expired: ask your agent to pair again for a fresh link",
            ),
            Refusal::Decided => {
                reply::error(StatusCode::CONFLICT, "already_decided", "this pairing was already approved or denied")
            }
        }),
    }
}
