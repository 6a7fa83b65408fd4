//! Who made a request, as the transport authenticated it.

use serde_json::{Map, Value};

/// The authenticated caller of a request: made by a transport or an authenticator from the
/// request's credentials (over HTTP; stdio has none), read by tools and layers through
/// [`Cx::principal`](crate::Cx::principal).
///
/// ```
/// use tooltable::Principal;
///
/// let caller = Principal::new("user-17").with_client_id("notes-cli").with_scopes(["notes:read"]);
/// assert!(caller.has_scope("notes:read"));
/// assert!(!caller.has_scope("notes:write"));
/// assert_eq!(caller.client_id.as_deref(), Some("notes-cli"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Principal {
    /// Who the caller is: a user id, an account, the subject of a token.
    pub subject: String,
    /// The client application acting for the subject, when the credentials name one.
    pub client_id: Option<String>,
    /// What the credentials allow, as the authority wrote it (OAuth scopes, say).
    pub scopes: Vec<String>,
    /// Everything else the credentials said (a token's other claims), as JSON.
    pub claims: Map<String, Value>,
}

impl Principal {
    /// A principal with this subject and nothing else.
    pub fn new(subject: impl Into<String>) -> Self {
        Principal { subject: subject.into(), ..Principal::default() }
    }

    /// The principal, with the client acting for it.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The principal, with these scopes.
    pub fn with_scopes<I: IntoIterator<Item = T>, T: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The principal, with these claims.
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// Whether the credentials grant `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}
