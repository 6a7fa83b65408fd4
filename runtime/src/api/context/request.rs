//! What a transport knows of one message beyond its bytes: which transport carried it, and who
//! sent it. The transport fills it in; the engine hands it to the call, where [`Cx`](crate::Cx)
//! tells it.

use std::sync::Arc;

use super::principal::Principal;

/// Which transport carried a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Transport {
    /// MCP over the standard streams.
    Stdio,
    /// MCP over Streamable HTTP (the `/mcp` endpoint).
    Http,
    /// A REST route.
    Rest,
    /// In the server's own process: the `call` command, `Server::call`, tests.
    InProcess,
    /// A transport of the application's own, by the name it gives itself.
    Custom(&'static str),
}

impl Transport {
    /// Its name in logs: `stdio`, `http`, `rest`, `in_process`, or a custom transport's own.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Rest => "rest",
            Transport::InProcess => "in_process",
            Transport::Custom(name) => name,
        }
    }
}

/// Which era of the protocol a call came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// A session that negotiated a revision up to 2025-11-25 with `initialize`.
    Handshake,
    /// Revision 2026-07-28: each request carries its revision and capabilities in `_meta`.
    Stateless,
}

impl Era {
    /// Its name in logs: `handshake` or `stateless`.
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Handshake => "handshake",
            Era::Stateless => "stateless",
        }
    }
}

/// What the transport knows of one incoming message: the transport, and the principal its
/// credentials name, if any.
///
/// ```
/// use tooltable::Principal;
/// use tooltable::context::Transport;
/// use tooltable::transport::RequestContext;
///
/// let stdio = RequestContext::new(Transport::Stdio);
/// assert!(stdio.principal().is_none());
/// let http = RequestContext::new(Transport::Http).with_principal(Some(Principal::new("user-17")));
/// assert_eq!(http.principal().map(|p| p.subject.as_str()), Some("user-17"));
/// ```
#[derive(Debug, Clone)]
pub struct RequestContext {
    transport: Transport,
    principal: Option<Arc<Principal>>,
}

impl RequestContext {
    /// A message carried by `transport`, from no authenticated caller.
    pub const fn new(transport: Transport) -> Self {
        RequestContext { transport, principal: None }
    }

    /// The same, from `principal`.
    pub fn with_principal(mut self, principal: Option<Principal>) -> Self {
        self.principal = principal.map(Arc::new);
        self
    }

    /// The transport that carried the message.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// The authenticated caller, if the transport knows one.
    pub fn principal(&self) -> Option<&Principal> {
        self.principal.as_deref()
    }

    /// The principal as the engine keeps it, shared with the calls it starts.
    pub(crate) fn shared_principal(&self) -> Option<&Arc<Principal>> {
        self.principal.as_ref()
    }
}
