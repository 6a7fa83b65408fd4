//! Tools that talk back to the client while they run: logs, progress, sampling, elicitation.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tooltable::content::{Content, ContentBlock};
use tooltable::{Cx, Error, tool};

const STEP: Duration = Duration::from_millis(50);

fn text(s: impl Into<String>) -> Result<Content, Error> {
    Ok(ContentBlock::text(s).into())
}

/// Sends three info logs, 50 ms apart, while it runs.
#[tool(read_only)]
pub async fn test_tool_with_logging(cx: &Cx<()>) -> Result<Content, Error> {
    cx.info("Tool execution started");
    tokio::time::sleep(STEP).await;
    cx.info("Tool processing data");
    tokio::time::sleep(STEP).await;
    cx.info("Tool execution completed");
    text("Tool with logging executed successfully")
}

/// Reports progress 0, 50 and 100 of 100, 50 ms apart, when the request carries a progressToken.
#[tool(read_only)]
pub async fn test_tool_with_progress(cx: &Cx<()>) -> Result<Content, Error> {
    for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(STEP).await;
        }
        cx.progress(progress, Some(100.0), None);
    }
    text("Tool with progress executed successfully")
}

#[derive(Deserialize, JsonSchema)]
pub struct SamplingArgs {
    /// The prompt to send to the client's model.
    pub prompt: String,
}

/// Asks the client's model (`sampling/createMessage`) and returns its answer.
#[tool(open_world)]
pub async fn test_sampling(cx: &Cx<()>, args: SamplingArgs) -> Result<Content, Error> {
    let params = json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": args.prompt } }],
        "maxTokens": 100,
    });
    let answer = cx.create_message(params).await.map_err(|e| Error::bad_request(e.to_string()))?;
    let reply = answer.pointer("/content/text").and_then(Value::as_str).unwrap_or("");
    text(format!("LLM response: {reply}"))
}

#[derive(Deserialize, JsonSchema)]
pub struct ElicitationArgs {
    /// The message to show the user.
    pub message: String,
}

/// Asks the user for a username and an email (`elicitation/create`) and returns the answer.
#[tool(open_world)]
pub async fn test_elicitation(cx: &Cx<()>, args: ElicitationArgs) -> Result<Content, Error> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": { "type": "string", "description": "User's response" },
            "email": { "type": "string", "description": "User's email address" },
        },
        "required": ["username", "email"],
    });
    let answer = cx.elicit_form(&args.message, schema).await.map_err(|e| Error::bad_request(e.to_string()))?;
    text(format!("User response: {}", describe(&answer)))
}

fn describe(answer: &Value) -> String {
    let action = answer.get("action").and_then(Value::as_str).unwrap_or("unknown");
    let content = answer.get("content").cloned().unwrap_or(json!({}));
    format!("action={action}, content={content}")
}

async fn elicit(cx: &Cx<()>, message: &str, properties: Value) -> Result<Content, Error> {
    let schema = json!({ "type": "object", "properties": properties, "required": [] });
    let answer = cx.elicit_form(message, schema).await.map_err(|e| Error::bad_request(e.to_string()))?;
    text(format!("Elicitation completed: {}", describe(&answer)))
}

/// Asks for a form whose fields all carry defaults, one per primitive type (SEP-1034).
#[tool(open_world)]
pub async fn test_elicitation_sep1034_defaults(cx: &Cx<()>) -> Result<Content, Error> {
    let properties = json!({
        "name": { "type": "string", "description": "User name", "default": "John Doe" },
        "age": { "type": "integer", "description": "User age", "default": 30 },
        "score": { "type": "number", "description": "User score", "default": 95.5 },
        "status": { "type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active" },
        "verified": { "type": "boolean", "description": "Verification status", "default": true },
    });
    elicit(cx, "Please review and update the form fields with defaults", properties).await
}

/// Asks for a form using each of the five enum schema shapes (SEP-1330).
#[tool(open_world)]
pub async fn test_elicitation_sep1330_enums(cx: &Cx<()>) -> Result<Content, Error> {
    let properties = json!({
        "untitledSingle": { "type": "string", "enum": ["option1", "option2", "option3"] },
        "titledSingle": { "type": "string", "oneOf": [
            { "const": "value1", "title": "First Option" },
            { "const": "value2", "title": "Second Option" },
            { "const": "value3", "title": "Third Option" },
        ] },
        "legacyEnum": { "type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"] },
        "untitledMulti": { "type": "array", "items": { "type": "string", "enum": ["option1", "option2", "option3"] } },
        "titledMulti": { "type": "array", "items": { "anyOf": [
            { "const": "value1", "title": "First Choice" },
            { "const": "value2", "title": "Second Choice" },
            { "const": "value3", "title": "Third Choice" },
        ] } },
    });
    elicit(cx, "Please choose from each kind of list", properties).await
}

/// Closes the stream carrying the call, then answers a moment later: over HTTP the client
/// reconnects with Last-Event-ID and gets the answer there (SEP-1699).
#[tool(read_only)]
pub async fn test_reconnection(cx: &Cx<()>) -> Result<Content, Error> {
    cx.close_stream();
    tokio::time::sleep(Duration::from_millis(200)).await;
    text("Reconnection test completed successfully")
}
