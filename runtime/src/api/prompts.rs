//! Prompts a server offers, and the completion handler for their arguments.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use serde::Serialize;

use crate::api::content::ContentBlock;
use crate::api::context::Cx;
use crate::api::operation::BoxFuture;
use crate::api::outcome::ToolFailure;

/// A prompt as `prompts/list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prompt {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptArgument {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub required: bool,
}

impl Prompt {
    pub fn new(name: impl Into<String>) -> Self {
        Prompt { name: name.into(), title: None, description: None, arguments: Vec::new() }
    }
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }
    pub fn argument(mut self, name: impl Into<String>, description: impl Into<String>, required: bool) -> Self {
        self.arguments.push(PromptArgument { name: name.into(), description: Some(description.into()), required });
        self
    }
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptMessage {
    pub role: Role,
    pub content: ContentBlock,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

impl PromptMessage {
    pub fn user(content: ContentBlock) -> Self {
        PromptMessage { role: Role::User, content }
    }
    pub fn assistant(content: ContentBlock) -> Self {
        PromptMessage { role: Role::Assistant, content }
    }
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub messages: Vec<PromptMessage>,
}

/// The arguments of `prompts/get`, by name (every value a string, as MCP defines them).
pub type PromptArgs = BTreeMap<String, String>;

pub(crate) type PromptHandler<S> =
    Arc<dyn Fn(Cx<S>, PromptArgs) -> BoxFuture<'static, Result<PromptResult, ToolFailure>> + Send + Sync>;

pub(crate) fn prompt_handler<S, F, Fut>(f: F) -> PromptHandler<S>
where
    F: Fn(Cx<S>, PromptArgs) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<PromptResult, ToolFailure>> + Send + 'static,
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
    pub argument: String,
    pub value: String,
    pub context: BTreeMap<String, String>,
}

pub(crate) type CompletionHandler<S> =
    Arc<dyn Fn(Cx<S>, CompletionRequest) -> BoxFuture<'static, Result<Vec<String>, ToolFailure>> + Send + Sync>;

pub(crate) fn completion_handler<S, F, Fut>(f: F) -> CompletionHandler<S>
where
    F: Fn(Cx<S>, CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<String>, ToolFailure>> + Send + 'static,
{
    Arc::new(move |cx, req| Box::pin(f(cx, req)))
}
