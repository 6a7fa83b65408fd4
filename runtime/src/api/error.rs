//! How a tool fails: [`Error`], a kind and the JSON body the caller sees, which an error type of
//! one's own ([`ErrorBody`]) becomes.
//!
//! ```
//! use serde::Serialize;
//! use tooltable::{Error, ErrorBody, ErrorKind};
//!
//! /// The body a caller sees when a version check fails.
//! #[derive(Serialize)]
//! struct VersionConflict {
//!     error: &'static str,
//!     expected: u32,
//!     actual: u32,
//! }
//!
//! impl ErrorBody for VersionConflict {
//!     fn kind(&self) -> ErrorKind {
//!         ErrorKind::Conflict
//!     }
//! }
//!
//! let error = Error::from(VersionConflict { error: "Version conflict", expected: 2, actual: 3 });
//! assert_eq!((error.kind, error.kind.http_status()), (ErrorKind::Conflict, 409));
//! assert_eq!(error.body["expected"], 2);
//! assert_eq!(error.message(), Some("Version conflict"));
//!
//! let ready = Error::not_found("no note 7");
//! assert_eq!(ready.body, serde_json::json!({ "error": "no note 7" }));
//! ```

use serde::Serialize;
use serde_json::{Map, Value};

/// The kind of a tool failure. It picks the REST status; over MCP every kind is an `isError` result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The arguments are well-formed JSON but not acceptable (422).
    InvalidInput,
    /// The call needs credentials the request did not carry (401): it comes from no caller the
    /// server knows, and what it names is not for everyone.
    Unauthorized,
    /// The caller may not have what it asked for (403).
    Forbidden,
    /// The addressed thing does not exist (404).
    NotFound,
    /// The request conflicts with the current state (409).
    Conflict,
    /// The request is malformed (400).
    BadRequest,
    /// The request or its result is too large (413).
    TooLarge,
    /// The server holds or accepts no more of these for now: a count limit (429).
    TooMany,
    /// The tool failed on its own side (500).
    Internal,
    /// The call ran past its time limit and was cancelled (504).
    Timeout,
    /// The request can go on only after the user completes a URL-mode elicitation (403). Over MCP
    /// this is the JSON-RPC error -32042 the specification defines, not a tool result.
    ElicitationRequired,
}

impl ErrorKind {
    /// Every kind, in the order the docs list them.
    pub const ALL: [ErrorKind; 11] = [
        ErrorKind::InvalidInput,
        ErrorKind::Unauthorized,
        ErrorKind::Forbidden,
        ErrorKind::NotFound,
        ErrorKind::Conflict,
        ErrorKind::BadRequest,
        ErrorKind::TooLarge,
        ErrorKind::TooMany,
        ErrorKind::Internal,
        ErrorKind::Timeout,
        ErrorKind::ElicitationRequired,
    ];

    /// The kind a REST status stands for: the first kind that maps to it, else `Internal`.
    pub fn from_http_status(status: u16) -> ErrorKind {
        ErrorKind::ALL.into_iter().find(|k| k.http_status() == status).unwrap_or(ErrorKind::Internal)
    }

    /// The HTTP status a REST caller sees for this kind: the one mapping, shared by REST and OpenAPI.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorKind::InvalidInput => 422,
            ErrorKind::Unauthorized => 401,
            ErrorKind::Forbidden => 403,
            ErrorKind::NotFound => 404,
            ErrorKind::Conflict => 409,
            ErrorKind::BadRequest => 400,
            ErrorKind::TooLarge => 413,
            ErrorKind::TooMany => 429,
            ErrorKind::Internal => 500,
            ErrorKind::Timeout => 504,
            ErrorKind::ElicitationRequired => 403,
        }
    }
}

/// A tool's failure: its kind, which picks the REST status (over MCP every kind is an
/// `isError` result), and the JSON body the caller sees, as text and `structuredContent`.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    /// What went wrong, as a status.
    pub kind: ErrorKind,
    /// What the caller sees.
    pub body: Value,
}

impl Error {
    /// A failure whose body is `{"error": message}`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("error".to_owned(), Value::String(message.into()));
        Error { kind, body: Value::Object(body) }
    }
    /// The arguments are well-formed but not acceptable (422).
    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidInput, message)
    }
    /// The caller may not have what it asked for (403).
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Forbidden, message)
    }
    /// The addressed thing does not exist (404).
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }
    /// The request conflicts with the current state (409).
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, message)
    }
    /// The request is malformed (400).
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadRequest, message)
    }
    /// The request or its result is too large (413).
    pub fn too_large(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::TooLarge, message)
    }
    /// The server holds or accepts no more of these for now (429).
    pub fn too_many(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::TooMany, message)
    }
    /// The tool failed on its own side (500).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    /// The body's `error`, the sentence every body of the framework's own has.
    pub fn message(&self) -> Option<&str> {
        self.body.get("error").and_then(Value::as_str)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.message() {
            Some(message) => f.write_str(message),
            None => write!(f, "{}", self.body),
        }
    }
}

impl std::error::Error for Error {}

/// An error serializes as its body.
impl Serialize for Error {
    fn serialize<Ser: serde::Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        self.body.serialize(s)
    }
}

/// An error type of one's own that a tool may return: a plain `Serialize` Rust type whose
/// serialised form is the body the caller sees (the text block and `structuredContent` of an
/// `isError` result), e.g. `#[derive(Serialize)] struct ConstraintViolation { error: &'static str,
/// violations: Vec<V> }`. When it is also `JsonSchema`, its schema joins the tool's outputSchema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's error type: it does not implement `tooltable::ErrorBody`",
    note = "implement `tooltable::ErrorBody` for it (`fn kind` picks the REST status), or return `tooltable::Error`"
)]
pub trait ErrorBody: Serialize {
    /// Picks the REST status; defaults to an internal failure.
    fn kind(&self) -> ErrorKind {
        ErrorKind::Internal
    }
}

impl<E: ErrorBody> From<E> for Error {
    fn from(e: E) -> Error {
        match serde_json::to_value(&e) {
            Ok(mut body) => {
                crate::api::numbers::normalize(&mut body);
                Error { kind: e.kind(), body }
            }
            Err(err) => unserializable("error", &err),
        }
    }
}

/// A value the tool returned that serde could not write: an internal failure, never a success
/// with a made-up body.
pub(crate) fn unserializable(what: &str, err: &serde_json::Error) -> Error {
    Error::new(ErrorKind::Internal, format!("the tool's {what} could not be serialised: {err}"))
}

/// One URL-mode elicitation the user must complete before the request can be retried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UrlElicitation {
    /// Its id, which `notifications/elicitation/complete` names when it is done.
    pub elicitation_id: String,
    /// Where to send the user.
    pub url: String,
    /// Why, for the user.
    pub message: String,
}

/// The error a tool returns when it cannot go on until the user has visited a URL (to
/// authorize, say): over MCP the JSON-RPC error -32042 (`URLElicitationRequiredError`) listing
/// the elicitations; over REST a 403 with the same body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlElicitationRequired {
    /// Why, for a person.
    pub message: String,
    /// What the user must complete.
    pub elicitations: Vec<UrlElicitation>,
}

impl Serialize for UrlElicitationRequired {
    fn serialize<Ser: serde::Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("error", &self.message)?;
        map.serialize_entry("elicitations", &self.elicitations.iter().map(UrlMode).collect::<Vec<_>>())?;
        map.end()
    }
}

/// An elicitation as the error lists it: with `"mode": "url"`.
struct UrlMode<'a>(&'a UrlElicitation);

impl Serialize for UrlMode<'_> {
    fn serialize<Ser: serde::Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry("mode", "url")?;
        map.serialize_entry("elicitationId", &self.0.elicitation_id)?;
        map.serialize_entry("url", &self.0.url)?;
        map.serialize_entry("message", &self.0.message)?;
        map.end()
    }
}

impl ErrorBody for UrlElicitationRequired {
    fn kind(&self) -> ErrorKind {
        ErrorKind::ElicitationRequired
    }
}
