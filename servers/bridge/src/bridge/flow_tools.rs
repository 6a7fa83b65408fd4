//! The four flow tools, always served: run a published flow, list flows, validate a flow's YAML,
//! try a draft. Each forwards to the hub; none saves, edits or deletes a flow.

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tooltable::{Cx, ErrorBody, ErrorKind, tool};

use super::Bridge;
use super::client::HubError;
use crate::protocol::Transport;

/// The names of the flow tools, which no capability may take.
pub const NAMES: [&str; 4] = ["jevalan_run_flow", "jevalan_list_flows", "jevalan_validate_flow", "jevalan_try_draft"];

/// Everything but unreserved characters is escaped in a path segment.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'?')
    .add(b'<')
    .add(b'>')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'\\')
    .add(b'^')
    .add(b'|')
    .add(b'[')
    .add(b']');

/// A path segment with its reserved characters escaped.
pub fn segment(s: &str) -> String {
    utf8_percent_encode(s, SEGMENT).to_string()
}

/// Why a flow tool failed.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum FlowToolError {
    Hub(HubError),
    /// A transport that calls real backends, without `--allow-live`.
    LiveRefused {
        error: String,
        reason: &'static str,
    },
}

impl ErrorBody for FlowToolError {
    fn kind(&self) -> ErrorKind {
        match self {
            FlowToolError::Hub(e) => e.kind(),
            FlowToolError::LiveRefused { .. } => ErrorKind::Forbidden,
        }
    }
}

impl From<HubError> for FlowToolError {
    fn from(e: HubError) -> Self {
        FlowToolError::Hub(e)
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct RunFlowArgs {
    /// The published flow's name.
    pub name: String,
    /// The state the flow starts from.
    #[serde(default)]
    pub state: Map<String, Value>,
}

/// Runs a published flow by name with a state, and returns its outcome, data and path.
#[tool(title = "Run a flow")]
pub async fn jevalan_run_flow(cx: &Cx<Bridge>, args: RunFlowArgs) -> Result<Value, FlowToolError> {
    let path = format!("/v1/flows/{}/run", segment(&args.name));
    Ok(cx.state().hub.post(&path, &json!({ "state": args.state })).await?)
}

#[derive(Deserialize, JsonSchema)]
pub struct NoArgs {}

/// Lists loaded flows and the invalid ones, with the reason.
#[tool(title = "List flows", read_only, idempotent, open_world = false)]
pub async fn jevalan_list_flows(cx: &Cx<Bridge>, _args: NoArgs) -> Result<Value, FlowToolError> {
    let mut answer = cx.state().hub.get("/v1/flows").await?;
    if let Some(map) = answer.as_object_mut() {
        map.remove("revision");
    }
    Ok(answer)
}

#[derive(Deserialize, JsonSchema)]
pub struct ValidateArgs {
    /// The flow's YAML.
    pub yaml: String,
}

/// Validates a flow's YAML with the hub's real parser, without publishing it. An invalid flow
/// answers `ok: false` with the problem (and its line and column when the YAML itself is wrong):
/// that is a verdict, not a failed call.
#[tool(title = "Validate a flow", read_only, idempotent, open_world = false)]
pub async fn jevalan_validate_flow(cx: &Cx<Bridge>, args: ValidateArgs) -> Result<Value, FlowToolError> {
    Ok(cx.state().hub.post("/v1/flows/validate", &json!({ "yaml": args.yaml })).await?)
}

#[derive(Deserialize, JsonSchema)]
pub struct TryDraftArgs {
    /// The draft flow's YAML.
    pub yaml: String,
    /// The state the draft starts from.
    #[serde(default)]
    pub state: Map<String, Value>,
    /// `replay` (the default) calls nothing; `live` and `record` call real backends, which can
    /// cost money, and are refused unless the bridge was started with `--allow-live`.
    #[serde(default)]
    pub transport: Transport,
}

/// Runs a draft once without publishing it.
#[tool(title = "Try a draft")]
pub async fn jevalan_try_draft(cx: &Cx<Bridge>, args: TryDraftArgs) -> Result<Value, FlowToolError> {
    if args.transport != Transport::Replay && !cx.state().allow_live {
        let t = args.transport.name();
        return Err(FlowToolError::LiveRefused {
            error: format!(
                "the `{t}` transport calls real backends, which can cost money; it is refused unless the bridge is started with --allow-live"
            ),
            reason: "live_refused",
        });
    }
    let body = json!({ "yaml": args.yaml, "state": args.state, "transport": args.transport });
    Ok(cx.state().hub.post("/v1/drafts/try", &body).await?)
}
