//! Fixtures of the tasks extension's scenarios: a sync greeting, and tools whose calls run as
//! tasks for a client that declares the extension: slow work, a tool error, a protocol error,
//! questions that park the task until `tasks/update` answers them, and a tool that asks in
//! rounds first and becomes a task after.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tooltable::content::{Content, ContentBlock};
use tooltable::context::InputRequest;
use tooltable::{Cx, Error, tool};

use crate::round_tools::{ask, field, name_question};

fn text(s: impl Into<String>) -> Result<Content, Error> {
    Ok(ContentBlock::text(s).into())
}

#[derive(Deserialize, JsonSchema)]
pub struct GreetArgs {
    /// Who to greet.
    pub name: String,
}

/// Greets by name, at once: never a task.
#[tool(read_only)]
pub async fn greet(args: GreetArgs) -> Result<Content, Error> {
    text(format!("Hello, {}!", args.name))
}

#[derive(Deserialize, JsonSchema)]
pub struct SlowComputeArgs {
    /// How long the computation takes, in seconds (at most 600).
    #[schemars(range(max = 600))]
    pub seconds: u64,
    /// A label echoed in the result.
    #[serde(default)]
    pub label: Option<String>,
}

/// Computes for `seconds` seconds, then reports; as a task, `tasks/cancel` stops it.
#[tool(read_only, task)]
pub async fn slow_compute(args: SlowComputeArgs) -> Result<Content, Error> {
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    let label = args.label.unwrap_or_default();
    text(format!("Computed for {} s ({label})", args.seconds))
}

/// Works for about a second, then fails as a tool (a task that completes with `isError`).
#[tool(read_only, task = "required")]
pub async fn failing_job() -> Result<Content, Error> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(Error::bad_request("the job failed"))
}

/// Panics: a protocol error, so a task that fails.
#[tool(read_only, task)]
pub async fn protocol_error_job() -> Result<Content, Error> {
    panic!("the job crashed")
}

#[derive(Deserialize, JsonSchema)]
pub struct ConfirmDeleteArgs {
    /// The file to delete.
    pub filename: String,
}

/// Asks the user to confirm, then says whether the file was deleted (nothing is touched).
#[tool(destructive = false, task)]
pub async fn confirm_delete(cx: &Cx<()>, args: ConfirmDeleteArgs) -> Result<Content, Error> {
    let schema =
        json!({ "type": "object", "properties": { "confirm": { "type": "boolean" } }, "required": ["confirm"] });
    let question = InputRequest::elicit_form(&format!("Delete {}?", args.filename), schema);
    let answers = ask(cx, vec![("confirm", question)]).await?;
    match confirmed(&answers["confirm"]) {
        true => text(format!("Deleted {}", args.filename)),
        false => text(format!("Kept {}", args.filename)),
    }
}

/// Asks two questions at once (a name and a confirmation), so both are pending together.
#[tool(read_only, task)]
pub async fn multi_input(cx: &Cx<()>) -> Result<Content, Error> {
    let name_schema = json!({ "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] });
    let confirm_schema = json!({ "type": "object", "properties": { "confirm": { "type": "boolean" } } });
    let answers = ask(
        cx,
        vec![
            ("name", InputRequest::elicit_form("Your name?", name_schema)),
            ("confirm", InputRequest::elicit_form("Go ahead?", confirm_schema)),
        ],
    )
    .await?;
    text(format!("Hello, {}; confirmed: {}", field(&answers["name"], "name"), confirmed(&answers["confirm"])))
}

/// Asks the user's name in rounds (`user_name`), then goes on as a task that greets them.
#[tool(read_only, task = "required", deferred_task)]
pub async fn test_tool_with_task(cx: &Cx<()>) -> Result<Content, Error> {
    let answers = ask(cx, vec![("user_name", name_question())]).await?;
    cx.start_task().await;
    // The work the task stands for.
    tokio::time::sleep(Duration::from_millis(100)).await;
    text(format!("Hello, {}!", field(&answers["user_name"], "name")))
}

/// Whether an elicitation answer accepted with `confirm: true`.
fn confirmed(answer: &Value) -> bool {
    answer["action"] == "accept" && answer["content"]["confirm"] == true
}
