//! Tools that exercise the protocol engine for this repository's own tests: a slow call with
//! progress, logs at a chosen level, an oversized result, dynamic tools and resource updates.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tooltable::context::LogLevel;
use tooltable::tool::{DynamicTool, Output, ToolDescriptor};
use tooltable::{Cx, Error, tool};

#[derive(Deserialize, JsonSchema)]
pub struct SleepArgs {
    /// How long to sleep, in milliseconds (at most 60,000).
    #[schemars(range(max = 60000))]
    pub ms: u64,
    /// Progress reports spread over the sleep (at most 1,000).
    #[serde(default)]
    #[schemars(range(max = 1000))]
    pub steps: u32,
}

#[derive(Serialize, JsonSchema)]
pub struct Slept {
    pub slept_ms: u64,
}

/// Sleeps, reporting progress in steps; a cancelled sleep ends at once.
#[tool(read_only, idempotent)]
pub async fn sleep(cx: &Cx<()>, args: SleepArgs) -> Result<Slept, Error> {
    let steps = args.steps.max(1);
    for step in 1..=steps {
        tokio::time::sleep(Duration::from_millis(args.ms / u64::from(steps))).await;
        if args.steps > 0 {
            cx.progress(f64::from(step), Some(f64::from(steps)), Some(&format!("step {step} of {steps}")));
        }
    }
    Ok(Slept { slept_ms: args.ms })
}

#[derive(Deserialize, JsonSchema)]
pub struct EmitLogArgs {
    /// debug, info, notice, warning, error, critical, alert or emergency.
    pub level: String,
    pub message: String,
}

/// Sends one log message at the given level (the session's level filter applies).
#[tool(read_only)]
pub async fn emit_log(cx: &Cx<()>, args: EmitLogArgs) -> Result<Value, Error> {
    let level =
        LogLevel::parse(&args.level).ok_or_else(|| Error::invalid_input(format!("unknown level {:?}", args.level)))?;
    cx.log(level, &args.message);
    Ok(json!({ "sent": args.level }))
}

#[derive(Deserialize, JsonSchema)]
pub struct LargeResultArgs {
    /// The length of the string returned.
    #[schemars(range(max = 10000000))]
    pub chars: usize,
}

#[derive(Serialize, JsonSchema)]
pub struct Large {
    pub data: String,
}

/// Returns a string of the requested length, to exercise the result-size guard.
#[tool(read_only, idempotent)]
pub async fn large_result(args: LargeResultArgs) -> Result<Large, Error> {
    Ok(Large { data: "x".repeat(args.chars) })
}

#[derive(Deserialize, JsonSchema)]
pub struct ToolName {
    /// The dynamic tool's name.
    pub name: String,
}

/// Adds a tool at run time that echoes its arguments; sessions get `notifications/tools/list_changed`.
#[tool]
pub async fn add_tool(cx: &Cx<()>, args: ToolName) -> Result<Value, Error> {
    let schema = json!({ "type": "object", "properties": { "text": { "type": "string" } } });
    let descriptor = ToolDescriptor::new(args.name.clone(), "Echoes its arguments (added at run time).", schema);
    let tool = DynamicTool::new(descriptor, |_cx, args| async move { Ok(Output::Json(json!({ "echo": args }))) });
    cx.add_tool(tool).map_err(|e| Error::invalid_input(e.to_string()))?;
    Ok(json!({ "added": args.name }))
}

/// Removes a tool added at run time.
#[tool(destructive, idempotent)]
pub async fn remove_tool(cx: &Cx<()>, args: ToolName) -> Result<Value, Error> {
    if !cx.remove_tool(&args.name) {
        return Err(Error::not_found(format!("no dynamic tool named {:?}", args.name)));
    }
    Ok(json!({ "removed": args.name }))
}

#[derive(Deserialize, JsonSchema)]
pub struct TouchArgs {
    pub uri: String,
}

/// Announces that a resource changed: subscribed sessions get `notifications/resources/updated`.
#[tool(idempotent)]
pub async fn touch_resource(cx: &Cx<()>, args: TouchArgs) -> Result<Value, Error> {
    cx.resource_updated(&args.uri);
    Ok(json!({ "touched": args.uri }))
}

/// Panics, to show that a crash inside one handler is an internal error for that request alone.
#[tool(read_only)]
pub async fn panic_now() -> Result<Value, Error> {
    panic!("deliberate panic for testing")
}
