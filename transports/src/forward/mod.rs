//! Any REST API with an OpenAPI 3.1 document, served as tools: [`Remote::connect`] fetches the
//! document (a tooltable server serves its own at `/openapi.json`) and reads one tool per
//! operation, and each tool's handler forwards the call to its operation over HTTP/1.1 with a
//! deadline. Installed in a [`Server`], the remote's operations are MCP tools over stdio or
//! Streamable HTTP like any other.
//!
//! ```no_run
//! use tooltable::Server;
//! use tooltable_transports::forward::{Options, Remote};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder(()).info("forwarder", "1.0.0").build()?;
//! let mut remote = Remote::connect("http://127.0.0.1:8080", Options::default().bearer_token("t0k3n")).await?;
//! remote.install(&server)?;
//! let user = server.call("object_get", serde_json::json!({ "entity": "User", "id": "user-bob" })).await;
//! // Later, when the remote's document changed: tools added, changed and removed in place.
//! let refreshed = remote.refresh(&server).await?;
//! println!("{refreshed:?}");
//! # Ok(()) }
//! ```
//!
//! How the document is read: a tool's name is the operation's `operationId` (sanitised to
//! `[A-Za-z0-9_.-]`, at most 128 characters, made unique), its description and title the
//! operation's `description` and `summary`; path and query parameters are its arguments, and so
//! are the properties of a JSON request body that is a closed object schema (any other body is one
//! `body` argument); the first 2xx JSON response's schema is its outputSchema when it is an object.
//! An operation this client cannot call faithfully (a required header or cookie parameter, a
//! request body that is not JSON, a reference outside the document's schemas) is left out, with
//! the reason, in [`Remote::skipped`]. A tooltable server's own descriptors can be laid over the
//! tools for their exact schemas ([`Remote::with_descriptors`]).
//!
//! A call's answer: a 2xx JSON body is the tool's result (204 is `null`); a 4xx or 5xx JSON body
//! is a tool failure whose body is the remote's, unchanged, of the kind its status maps to (404
//! not found, 409 conflict, 422 invalid input, 413 too large, 403 forbidden, 400 bad request,
//! anything else internal). No answer in time, no connection, a body that is not JSON or is
//! larger than the bound is a [`RemoteFailure`] naming the URL and the reason.
//!
//! [`mirror`] is the other use: a server forwarding its own tools to another instance of itself
//! (the standard command line's `mcp --url`). A [`Hook`] adds to the forwarded calls what a
//! forwarding server needs (headers of its own, arguments and results rewritten, an answer of its
//! own instead of the call), and [`Client`] sends requests of its own to the same remote.

pub(crate) mod client;
mod descriptors;
mod failure;
mod hook;
mod mirror;
mod openapi;
mod request;
mod schemas;
mod tools;
mod updates;

use std::sync::Arc;
use std::time::Duration;

use hyper::Method;
use serde_json::Value;
use tooltable::Server;
use tooltable::tool::{DynamicTool, TableError, ToolDescriptor};

pub use client::{Answer, Client};
pub use failure::{ForwardError, Reason, RemoteFailure};
pub use hook::{Hook, Outgoing};
pub use mirror::{Mirror, mirror};
pub use openapi::Skipped;

use client::Token;
use openapi::Reading;

/// How a remote is reached. Defaults: the document at `/openapi.json`, no descriptors, 30 s per
/// call, 16 MiB per answer, no token, no hook.
#[derive(Debug, Clone)]
pub struct Options {
    /// The document's path under the base URL.
    pub document_path: String,
    /// Where the server serves its own tool descriptors (a tooltable server's `tools` output),
    /// laid over the document's tools: see [`Remote::with_descriptors`].
    pub descriptors_path: Option<String>,
    /// The deadline of one whole exchange: connecting, sending, reading the answer.
    pub timeout: Duration,
    /// The largest answer body read; a larger one is a failure, not a truncated result.
    pub max_response_bytes: usize,
    /// Sent as `Authorization: Bearer ...` with every request, the document's too; set with
    /// [`Options::bearer_token`], never printed.
    pub(crate) token: Option<Token>,
    /// Called around every forwarded call and by the follower of the remote's updates.
    pub hook: Option<Arc<dyn Hook>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            document_path: "/openapi.json".into(),
            descriptors_path: None,
            timeout: Duration::from_secs(30),
            max_response_bytes: 16 * 1024 * 1024,
            token: None,
            hook: None,
        }
    }
}

impl Options {
    /// Sends `token` as `Authorization: Bearer <token>` with every request.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(Token::new(token));
        self
    }
    /// Sets [`Options::timeout`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
    /// Sets [`Options::max_response_bytes`].
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }
    /// Sets [`Options::document_path`].
    pub fn document_path(mut self, path: impl Into<String>) -> Self {
        self.document_path = path.into();
        self
    }
    /// Sets [`Options::descriptors_path`].
    pub fn descriptors_path(mut self, path: impl Into<String>) -> Self {
        self.descriptors_path = Some(path.into());
        self
    }
    /// Sets [`Options::hook`].
    pub fn hook(mut self, hook: Arc<dyn Hook>) -> Self {
        self.hook = Some(hook);
        self
    }
}

/// What a [`Remote::refresh`] did to the server's tools, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Refreshed {
    /// Tools of operations new in the document.
    pub added: Vec<String>,
    /// Tools whose operation changed, replaced.
    pub changed: Vec<String>,
    /// Tools whose operation is gone, removed.
    pub removed: Vec<String>,
}

/// A remote REST API read as tools: made with [`Remote::connect`] (or
/// [`Remote::from_document`]), put in a server with [`Remote::install`], kept in line with the
/// remote's document with [`Remote::refresh`].
#[derive(Debug)]
pub struct Remote {
    client: Arc<Client>,
    document_path: String,
    descriptors_path: Option<String>,
    /// Descriptors given in hand, laid over every reading of the document.
    descriptors: Option<Value>,
    reading: Reading,
    hook: Option<Arc<dyn Hook>>,
}

impl Remote {
    /// Fetches the remote's OpenAPI document and reads its tools.
    pub async fn connect(base_url: &str, options: Options) -> Result<Remote, ForwardError> {
        let mut remote = Remote::unread(base_url, options)?;
        remote.reading = remote.fetch().await?;
        Ok(remote)
    }

    /// Reads the tools of a document already in hand; their calls go to `base_url`. Nothing is
    /// fetched until a tool is called.
    ///
    /// ```
    /// use serde_json::json;
    /// use tooltable_transports::forward::{Options, Remote};
    ///
    /// let document = json!({
    ///     "openapi": "3.1.0",
    ///     "info": { "title": "pets", "version": "1" },
    ///     "paths": { "/pets/{id}": { "get": {
    ///         "operationId": "get_pet",
    ///         "summary": "Reads one pet.",
    ///         "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string" } }],
    ///         "responses": { "200": { "description": "the pet", "content": { "application/json": {
    ///             "schema": { "type": "object" } } } } },
    ///     }, "put": {
    ///         "requestBody": { "content": { "text/plain": {} } },
    ///         "responses": {},
    ///     } } },
    /// });
    /// let remote = Remote::from_document("http://127.0.0.1:8080", &document, Options::default())?;
    /// let get_pet = remote.descriptors().next().unwrap();
    /// assert_eq!(get_pet.name, "get_pet");
    /// assert_eq!(get_pet.input_schema["required"], json!(["id"]));
    /// assert_eq!(get_pet.annotations.read_only, Some(true));
    /// assert_eq!(remote.skipped()[0].operation, "PUT /pets/{id}");
    /// assert_eq!(remote.skipped()[0].reason, "the request body is not JSON");
    ///
    /// let server = tooltable::Server::builder(()).info("pets", "1.0.0").build()?;
    /// remote.install(&server)?;
    /// assert!(server.table().get("get_pet").is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_document(base_url: &str, document: &Value, options: Options) -> Result<Remote, ForwardError> {
        let mut remote = Remote::unread(base_url, options)?;
        remote.reading = remote.read(document)?;
        Ok(remote)
    }

    fn unread(base_url: &str, options: Options) -> Result<Remote, ForwardError> {
        Ok(Remote {
            client: Arc::new(Client::new(base_url, &options)?),
            document_path: options.document_path,
            descriptors_path: options.descriptors_path,
            descriptors: None,
            reading: Reading::default(),
            hook: options.hook,
        })
    }

    /// Lays a tooltable server's own descriptors (the JSON array `SERVER tools` prints) over the
    /// tools: each tool of the same name takes its inputSchema, outputSchema, title, description
    /// and hints, so the forwarded tool is listed exactly as the server lists it. The document
    /// still gives the routes; a descriptor of a tool without one is ignored. Kept for refreshes.
    pub fn with_descriptors(mut self, descriptors: Value) -> Result<Remote, ForwardError> {
        descriptors::apply(&mut self.reading, &descriptors).map_err(given)?;
        self.descriptors = Some(descriptors);
        Ok(self)
    }

    /// The tools' descriptors, in the document's order.
    pub fn descriptors(&self) -> impl Iterator<Item = &ToolDescriptor> {
        self.reading.tools.iter().map(|t| &t.descriptor)
    }

    /// The document's operations that are not served, each with the reason.
    pub fn skipped(&self) -> &[Skipped] {
        &self.reading.skipped
    }

    /// The tools, for [`Server::add_tool`].
    pub fn tools<S: Send + Sync + 'static>(&self) -> Vec<DynamicTool<S>> {
        self.reading.tools.iter().map(|t| tools::tool(&self.client, t, self.hook.as_ref())).collect()
    }

    /// Adds every tool to the server (replacing dynamic tools of the same names). A tool the table
    /// refuses (a name one of the server's tools has, a schema that does not compile) stops
    /// it there: the error names the tool, and the tools before it stay added.
    pub fn install<S: Send + Sync + 'static>(&self, server: &Server<S>) -> Result<(), TableError> {
        self.tools().into_iter().try_for_each(|tool| server.add_tool(tool))
    }

    /// Fetches the document again and brings the server's tools in line with it: new operations
    /// added, changed ones replaced, vanished ones removed. Nothing changes when the fetch or the
    /// reading fails; a tool the server's table refuses stops the refresh there, with the changes
    /// before it made, and the next refresh tries again from the same old reading.
    pub async fn refresh<S: Send + Sync + 'static>(&mut self, server: &Server<S>) -> Result<Refreshed, ForwardError> {
        let reading = self.fetch().await?;
        let mut refreshed = Refreshed::default();
        for old in &self.reading.tools {
            let name = &old.descriptor.name;
            if !reading.tools.iter().any(|t| &t.descriptor.name == name) {
                server.remove_tool(name);
                refreshed.removed.push(name.clone());
            }
        }
        for new in &reading.tools {
            let old = self.reading.tools.iter().find(|t| t.descriptor.name == new.descriptor.name);
            let list = match old {
                Some(old) if old == new => continue,
                Some(_) => &mut refreshed.changed,
                None => &mut refreshed.added,
            };
            server.add_tool(tools::tool(&self.client, new, self.hook.as_ref())).map_err(ForwardError::Install)?;
            list.push(new.descriptor.name.clone());
        }
        self.reading = reading;
        Ok(refreshed)
    }

    /// Fetches the document (and the descriptors, when they have a path) and reads them.
    async fn fetch(&self) -> Result<Reading, ForwardError> {
        let document =
            self.fetch_json(&self.document_path, |url, reason| ForwardError::Document { url, reason }).await?;
        let mut reading = self.read(&document)?;
        if let Some(path) = &self.descriptors_path {
            let descriptors =
                self.fetch_json(path, |source, reason| ForwardError::Descriptors { source, reason }).await?;
            descriptors::apply(&mut reading, &descriptors)
                .map_err(|reason| ForwardError::Descriptors { source: self.client.base.url(path), reason })?;
        }
        Ok(reading)
    }

    /// The JSON at a path; a body that is not JSON is the error `not_json(url, reason)` makes.
    async fn fetch_json(
        &self,
        path: &str,
        not_json: impl FnOnce(String, String) -> ForwardError,
    ) -> Result<Value, ForwardError> {
        let answer = self.client.send(&Method::GET, path, None).await.map_err(ForwardError::Fetch)?;
        let url = self.client.base.url(path);
        if !(200..300).contains(&answer.status) {
            return Err(ForwardError::Status { url, status: answer.status });
        }
        serde_json::from_slice(&answer.body).map_err(|e| not_json(url, format!("it is not JSON: {e}")))
    }

    /// Reads a document, with the descriptors given in hand laid over it.
    fn read(&self, document: &Value) -> Result<Reading, ForwardError> {
        let url = self.client.base.url(&self.document_path);
        let mut reading = openapi::read(document).map_err(|reason| ForwardError::Document { url, reason })?;
        if let Some(descriptors) = &self.descriptors {
            descriptors::apply(&mut reading, descriptors).map_err(given)?;
        }
        Ok(reading)
    }
}

/// The descriptors given in hand do not fit.
fn given(reason: String) -> ForwardError {
    ForwardError::Descriptors { source: "the descriptors given".into(), reason }
}
