//! Prompts a server offers, and what `completion/complete` asks of the server's completion
//! handler for their arguments (and for resource templates' variables).
//!
//! ```
//! use tooltable::content::ContentBlock;
//! use tooltable::prompts::{Prompt, PromptMessage, PromptResult};
//! use tooltable::Server;
//!
//! let prompt = Prompt::new("summarize").description("Summarizes a note").argument("id", "The note's id", true);
//! let server = Server::builder(())
//!     .prompt(prompt, |_cx, args| async move {
//!         let text = format!("Summarize note {}.", args["id"]);
//!         Ok(PromptResult { description: None, messages: vec![PromptMessage::user(ContentBlock::text(text))] })
//!     })
//!     .completion(|_cx, req| async move { Ok(vec![format!("{}1", req.value)]) })
//!     .build()?;
//! # let _ = server;
//! # Ok::<(), tooltable::tool::TableError>(())
//! ```

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use serde::Serialize;

use crate::api::content::ContentBlock;
use crate::api::context::Cx;
use crate::api::error::Error;
use crate::api::tool::BoxFuture;

/// A prompt as `prompts/list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prompt {
    /// Its name, what `prompts/get` asks for.
    pub name: String,
    /// Its title, for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether `prompts/get` must give it (refused with -32602 otherwise).
    pub required: bool,
}

impl Prompt {
    /// A prompt with this name and nothing else.
    pub fn new(name: impl Into<String>) -> Self {
        Prompt { name: name.into(), title: None, description: None, arguments: Vec::new() }
    }
    /// The prompt, with a description.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }
    /// The prompt, with one more argument.
    pub fn argument(mut self, name: impl Into<String>, description: impl Into<String>, required: bool) -> Self {
        self.arguments.push(PromptArgument { name: name.into(), description: Some(description.into()), required });
        self
    }
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: ContentBlock,
}

/// Who says a prompt's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
}

impl PromptMessage {
    /// A message from the user.
    pub fn user(content: ContentBlock) -> Self {
        PromptMessage { role: Role::User, content }
    }
    /// A message from the model.
    pub fn assistant(content: ContentBlock) -> Self {
        PromptMessage { role: Role::Assistant, content }
    }
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptResult {
    /// What the prompt, with these arguments, is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
}

/// The arguments of `prompts/get`, by name (every value a string, as MCP defines them).
pub type PromptArgs = BTreeMap<String, String>;

pub(crate) type PromptHandler<S> =
    Arc<dyn Fn(Cx<S>, PromptArgs) -> BoxFuture<'static, Result<PromptResult, Error>> + Send + Sync>;

pub(crate) fn prompt_handler<S, F, Fut>(f: F) -> PromptHandler<S>
where
    F: Fn(Cx<S>, PromptArgs) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<PromptResult, Error>> + Send + 'static,
{
    Arc::new(move |cx, args| Box::pin(f(cx, args)))
}

pub(crate) struct RegisteredPrompt<S> {
    pub prompt: Prompt,
    pub get: PromptHandler<S>,
}

/// What `completion/complete` asks: which prompt or resource template, which argument, what the
/// user typed so far, and the arguments already resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct CompletionRequest {
    /// `ref/prompt` or `ref/resource`.
    pub ref_type: String,
    /// The prompt name or the resource template URI.
    pub ref_name: String,
    /// The argument (or template variable) being completed.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// The arguments already resolved, by name.
    pub context: BTreeMap<String, String>,
}

pub(crate) type CompletionHandler<S> =
    Arc<dyn Fn(Cx<S>, CompletionRequest) -> BoxFuture<'static, Result<Vec<String>, Error>> + Send + Sync>;

pub(crate) fn completion_handler<S, F, Fut>(f: F) -> CompletionHandler<S>
where
    F: Fn(Cx<S>, CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<String>, Error>> + Send + 'static,
{
    Arc::new(move |cx, req| Box::pin(f(cx, req)))
}
