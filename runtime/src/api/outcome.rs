//! What an operation gives back: a value, content blocks, or a failure with a parsed body.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

use crate::api::content::Content;

/// The kind of a tool failure. It picks the REST status; over MCP every kind is an `isError` result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The arguments are well-formed JSON but not acceptable (422).
    InvalidInput,
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
    /// The operation failed on its own side (500).
    Internal,
    /// The request can go on only after the user completes a URL-mode elicitation (403). Over MCP
    /// this is the JSON-RPC error -32042 the specification defines, not a tool result.
    ElicitationRequired,
}

impl ErrorKind {
    /// Every kind, in the order the docs list them.
    pub const ALL: [ErrorKind; 9] = [
        ErrorKind::InvalidInput,
        ErrorKind::Forbidden,
        ErrorKind::NotFound,
        ErrorKind::Conflict,
        ErrorKind::BadRequest,
        ErrorKind::TooLarge,
        ErrorKind::TooMany,
        ErrorKind::Internal,
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
            ErrorKind::Forbidden => 403,
            ErrorKind::NotFound => 404,
            ErrorKind::Conflict => 409,
            ErrorKind::BadRequest => 400,
            ErrorKind::TooLarge => 413,
            ErrorKind::TooMany => 429,
            ErrorKind::Internal => 500,
            ErrorKind::ElicitationRequired => 403,
        }
    }
}

/// A tool failure as the runtime carries it: a kind and the JSON body the caller sees.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolFailure {
    pub kind: ErrorKind,
    pub body: Value,
}

impl ToolFailure {
    /// A failure whose body is `{"error": message}`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ToolFailure { kind, body: json!({ "error": message.into() }) }
    }
}

/// An error type an operation may return: a plain `Serialize` Rust type whose serialised form is
/// the body the caller sees (the text block and `structuredContent` of an `isError` result), e.g.
/// `#[derive(Serialize)] struct ConstraintViolation { error: &'static str, violations: Vec<V> }`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an operation's error type: it does not implement `tooltable::ToolError`",
    note = "implement `tooltable::ToolError` for it (`fn kind` picks the REST status), or return `tooltable::Error`"
)]
pub trait ToolError: Serialize {
    /// Picks the REST status; defaults to an internal failure.
    fn kind(&self) -> ErrorKind {
        ErrorKind::Internal
    }
}

impl<E: ToolError> From<E> for ToolFailure {
    fn from(e: E) -> ToolFailure {
        match serde_json::to_value(&e) {
            Ok(mut body) => {
                crate::api::numbers::normalize(&mut body);
                ToolFailure { kind: e.kind(), body }
            }
            Err(err) => unserializable("error", &err),
        }
    }
}

/// A value the operation returned that serde could not write: an internal failure, never a
/// success with a made-up body.
fn unserializable(what: &str, err: &serde_json::Error) -> ToolFailure {
    ToolFailure::new(ErrorKind::Internal, format!("the operation's {what} could not be serialised: {err}"))
}

/// One URL-mode elicitation the user must complete before the request can be retried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UrlElicitation {
    pub elicitation_id: String,
    pub url: String,
    pub message: String,
}

/// The error an operation returns when it cannot go on until the user has visited a URL (to
/// authorize, say): over MCP the JSON-RPC error -32042 (`URLElicitationRequiredError`) listing
/// the elicitations; over REST a 403 with the same body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlElicitationRequired {
    pub message: String,
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

impl ToolError for UrlElicitationRequired {
    fn kind(&self) -> ErrorKind {
        ErrorKind::ElicitationRequired
    }
}

/// A ready error type: a kind and a message, with the body `{"error": message}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into() }
    }
    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidInput, message)
    }
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Forbidden, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, message)
    }
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadRequest, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl Serialize for Error {
    fn serialize<Ser: serde::Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry("error", &self.message)?;
        map.end()
    }
}

impl ToolError for Error {
    fn kind(&self) -> ErrorKind {
        self.kind
    }
}

/// The successful result of an operation: a JSON value, or content blocks given as they are.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutput {
    Json(Value),
    Content(Content),
}

/// What the table gets back from every call.
pub type CallResult = Result<CallOutput, ToolFailure>;

/// A success type an operation may return: any `Serialize + JsonSchema` value, or [`Content`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an operation's success type",
    note = "return a type that is `Serialize + JsonSchema`, or `tooltable::Content`"
)]
pub trait IntoCallOutput {
    /// The value as the client will see it; a value serde cannot write is an internal failure.
    fn into_output(self) -> Result<CallOutput, ToolFailure>;
    /// The outputSchema this type declares: its schema when that is an object, else none.
    fn output_schema() -> Option<Value>;
}

impl<T: Serialize + JsonSchema> IntoCallOutput for T {
    fn into_output(self) -> Result<CallOutput, ToolFailure> {
        let mut v = serde_json::to_value(self).map_err(|e| unserializable("result", &e))?;
        crate::api::numbers::normalize(&mut v);
        Ok(CallOutput::Json(v))
    }
    fn output_schema() -> Option<Value> {
        crate::api::schema::object_schema_of::<T>()
    }
}

impl IntoCallOutput for Content {
    fn into_output(self) -> Result<CallOutput, ToolFailure> {
        Ok(CallOutput::Content(self))
    }
    fn output_schema() -> Option<Value> {
        None
    }
}

/// The return type of an operation: `Result<T, E>` with `T: IntoCallOutput` and `E: ToolError`.
#[diagnostic::on_unimplemented(
    message = "an operation must return `Result<T, E>`, not `{Self}`",
    note = "T is `Serialize + JsonSchema` (or `tooltable::Content`); E implements `tooltable::ToolError` (or is `tooltable::ToolFailure`)"
)]
pub trait IntoCallResult {
    fn into_call_result(self) -> CallResult;
    fn output_schema() -> Option<Value>;
}

impl<T: IntoCallOutput, E: Into<ToolFailure>> IntoCallResult for Result<T, E> {
    fn into_call_result(self) -> CallResult {
        match self {
            Ok(v) => v.into_output(),
            Err(e) => Err(e.into()),
        }
    }
    fn output_schema() -> Option<Value> {
        T::output_schema()
    }
}
