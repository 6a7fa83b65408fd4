//! The sandbox (`valem serve --sandbox`): where an agent and a developer's browser work on the
//! same models. The agent pairs with RFC 8628's device flow (`POST /sandbox/pair`, then polls
//! `POST /sandbox/pair/token`); the developer opens the verification page, checks the code and
//! approves; the session that approval opens has a namespace of models of its own, reached with
//! the agent's token (`X-Session-Token`) or the browser's cookie. The pages (the verification
//! page, the session's list of models, a model's form) are plain HTML, CSS and one script
//! shipped in the binary; a model's page edits by mutation and hears of every change of its
//! model over an event stream.
//!
//! The routes are written against `http` types ([`Sandbox::handle`]); [`Sandbox::serve`] nests
//! them in the HTTP transport at `/sandbox`, outside the API key, and names the caller of every
//! other route by its `X-Session-Token`, so that the model tools keep a session's calls in its
//! namespace (see `tools/reach.rs`). Every bound is in [`SandboxLimits`] and
//! `docs/security/valem.md`.

// A refused request's `Err` is the HTTP response to send, built once and sent at once: boxing it
// would cost an allocation for nothing.
#![allow(clippy::result_large_err)]

mod api;
mod csrf;
mod device;
mod events;
pub mod limits;
mod pages;
mod pairings;
mod reply;
pub(crate) mod secrets;
mod serving;
mod sessions;
mod verify;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use http::{HeaderMap, Method, Request, StatusCode};
use serde_json::Value;
use tooltable::context::Transport;
use tooltable::tool::Output;
use tooltable::transport::RequestContext;
use tooltable::{Error, ErrorKind, Server};

use crate::namespace;
use crate::tools::registry::Models;

pub use limits::SandboxLimits;
pub use reply::{Body, Response};
pub use sessions::Holder;

/// The path every sandbox route is under.
pub const PATH: &str = "/sandbox";
/// The header the agent sends its session token in.
pub const SESSION_HEADER: &str = "x-session-token";
/// The cookie the browser keeps its session in.
pub const SESSION_COOKIE: &str = "valem_session";

/// The time the sandbox reads: the clock, or a test's.
pub type Clock = Arc<dyn Fn() -> Instant + Send + Sync>;

/// Who a request's credentials name: a live session's namespace, and which holder presented it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    pub namespace_id: String,
    pub holder: Holder,
}

/// The sandbox of one server: its pairings, its sessions and the pages' streams.
pub struct Sandbox {
    server: Server<Models>,
    limits: SandboxLimits,
    ledger: Mutex<Ledger>,
    /// Open event streams per namespace.
    streams: Mutex<HashMap<String, usize>>,
    clock: Clock,
}

/// Pairings and sessions change together (an approval opens a session), under one lock.
struct Ledger {
    pairings: pairings::Pairings,
    sessions: sessions::Sessions,
}

impl Sandbox {
    /// The sandbox of `server`'s models.
    pub fn new(server: Server<Models>, limits: SandboxLimits) -> Arc<Sandbox> {
        Sandbox::with_clock(server, limits, Arc::new(Instant::now))
    }

    /// [`new`](Sandbox::new), reading the time from `clock` (a test moves it on).
    pub fn with_clock(server: Server<Models>, limits: SandboxLimits, clock: Clock) -> Arc<Sandbox> {
        let ledger = Ledger { pairings: pairings::Pairings::new(&limits), sessions: sessions::Sessions::new(&limits) };
        Arc::new(Sandbox { server, limits, ledger: Mutex::new(ledger), streams: Mutex::default(), clock })
    }

    /// Answers a request for a path under `/sandbox`. Ends the sessions idle too long first, and
    /// their models with them.
    pub async fn handle<B>(self: &Arc<Self>, request: Request<B>) -> Response
    where
        B: http_body::Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        self.end_idle_sessions();
        let (head, body) = request.into_parts();
        let Some(segments) = segments(head.uri.path()) else {
            return reply::error(StatusCode::NOT_FOUND, "not_found", "no such sandbox route");
        };
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        let headers = &head.headers;
        match (&head.method, segments.as_slice()) {
            (&Method::POST, ["pair"]) => device::mint(self, headers),
            (&Method::POST, ["pair", "token"]) => device::poll(self, reply::read_json(body).await),
            (&Method::GET, ["verify"]) => pages::verify(headers),
            (&Method::POST, ["approve"]) => verify::approve(self, headers, reply::read_json(body).await),
            (&Method::POST, ["deny"]) => verify::deny(self, headers, reply::read_json(body).await),
            (&Method::GET, [] | [""]) => pages::session(self, headers).await,
            (&Method::GET, ["models", id]) => pages::model(self, headers, id),
            (&Method::GET, ["assets", name]) => pages::asset(name),
            (&Method::GET, ["api", "models"]) => api::list(self, headers).await,
            (&Method::GET, ["api", "models", id, "view"]) => api::view(self, headers, id).await,
            (&Method::POST, ["api", "models", id, "mutations"]) => {
                api::mutate(self, headers, id, reply::read_json(body).await).await
            }
            (&Method::POST, ["api", "models", id, "patch"]) => {
                api::patch(self, headers, id, reply::read_json(body).await).await
            }
            (&Method::GET, ["api", "models", id, "events"]) => events::stream(self, headers, id).await,
            (_, path) if route_exists(path) => reply::error(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                &format!("{} is not answered here", head.method),
            ),
            _ => reply::error(StatusCode::NOT_FOUND, "not_found", "no such sandbox route"),
        }
    }

    /// The live session the request's credentials name: `X-Session-Token`, else the session
    /// cookie. Presenting it keeps the session alive.
    pub fn access(&self, headers: &HeaderMap) -> Option<Access> {
        let token = reply::header(headers, SESSION_HEADER).or_else(|| reply::cookie(headers, SESSION_COOKIE))?;
        let now = self.now();
        let (namespace_id, holder) = self.ledger().sessions.authenticate(token, now)?;
        Some(Access { namespace_id, holder })
    }

    /// The server whose models the sandbox serves.
    pub fn server(&self) -> &Server<Models> {
        &self.server
    }

    /// Calls `tool` for the session of `namespace_id`, which reaches that namespace's models
    /// only.
    pub async fn call(&self, namespace_id: &str, tool: &str, arguments: Value) -> Result<Value, Error> {
        let request =
            RequestContext::new(Transport::InProcess).with_principal(Some(namespace::principal(namespace_id)));
        match self.server.call_tool(self.server.cx(&request), tool, Some(arguments)).await {
            Ok(Ok(Output::Json(value))) => Ok(value),
            Ok(Ok(Output::Content(content))) => Ok(serde_json::to_value(content).unwrap_or(Value::Null)),
            Ok(Err(failure)) => Err(failure),
            Err(e) => Err(Error::new(ErrorKind::BadRequest, e.message)),
        }
    }

    fn now(&self) -> Instant {
        (self.clock)()
    }

    fn ledger(&self) -> MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Ends the sessions idle too long and deletes their models (in the background: a request
    /// does not wait for it).
    fn end_idle_sessions(self: &Arc<Self>) {
        let now = self.now();
        let ended = self.ledger().sessions.end_idle(now);
        if ended.is_empty() {
            return;
        }
        let sandbox = Arc::clone(self);
        tokio::spawn(async move {
            for namespace in ended {
                api::delete_namespace(&sandbox, &namespace).await;
            }
        });
    }
}

/// The decoded segments of a sandbox path after `/sandbox`; `None` when one is not UTF-8.
fn segments(path: &str) -> Option<Vec<String>> {
    let rest = path.strip_prefix(PATH)?.strip_prefix('/').unwrap_or("");
    if rest.is_empty() {
        return Some(Vec::new());
    }
    rest.split('/').map(|s| percent_encoding::percent_decode_str(s).decode_utf8().ok().map(Into::into)).collect()
}

/// Whether some method is answered at this path.
fn route_exists(path: &[&str]) -> bool {
    matches!(
        path,
        ["pair"]
            | ["pair", "token"]
            | ["verify"]
            | ["approve"]
            | ["deny"]
            | []
            | [""]
            | ["models", _]
            | ["assets", _]
            | ["api", "models"]
            | ["api", "models", _, "view" | "mutations" | "patch" | "events"]
    )
}
