//! The hub's HTTP API, one tool per route (served by the REST transport): capabilities,
//! flows, drafts. `docs/servers/bridge.md` documents each route.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tooltable::{Cx, Error, ErrorBody, ErrorKind, tool};

use super::config::Config;
use super::flows::{self, Invalid, Transport};

#[derive(Deserialize, JsonSchema)]
pub struct NoArgs {}

/// Lists the loaded capabilities with their input schemas, the revision (it changes on every
/// reload), and the capability files that did not load.
#[tool(read_only, idempotent, rest = "GET /v1/capabilities")]
pub async fn list_capabilities(cx: &Cx<Config>, _args: NoArgs) -> Result<Value, Error> {
    let loaded = cx.state().current();
    Ok(json!({
        "revision": loaded.revision,
        "capabilities": loaded.capabilities.values().collect::<Vec<_>>(),
        "invalid": loaded.invalid_capabilities,
    }))
}

#[derive(Deserialize, JsonSchema)]
pub struct CallArgs {
    /// The capability's id.
    pub id: String,
    /// Its arguments (the request body).
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// Calls a capability: the answer is `{"status": "ok", "data"}`, `{"status": "abstain",
/// "reason"}` or `{"status": "error", "error"}`.
#[tool(rest = "POST /v1/capabilities/{id}/call", body = "arguments")]
pub async fn call_capability(cx: &Cx<Config>, args: CallArgs) -> Result<Value, Error> {
    let loaded = cx.state().current();
    let capability = loaded
        .capabilities
        .get(&args.id)
        .ok_or_else(|| Error::not_found(format!("no capability {:?} is loaded", args.id)))?;
    Ok(capability.call(&Value::Object(args.arguments)).await.to_json())
}

/// Lists the loaded flows, and the flow files that did not load with the reason.
#[tool(read_only, idempotent, rest = "GET /v1/flows")]
pub async fn list_flows(cx: &Cx<Config>, _args: NoArgs) -> Result<Value, Error> {
    let loaded = cx.state().current();
    let flows: Vec<Value> = loaded.flows.values().map(summary).collect();
    Ok(json!({ "revision": loaded.revision, "flows": flows, "invalid": loaded.invalid_flows }))
}

fn summary(flow: &flows::Flow) -> Value {
    let steps: Vec<&str> = flow.steps.iter().map(|s| s.id.as_str()).collect();
    json!({ "name": flow.name, "description": flow.description, "steps": steps })
}

#[derive(Deserialize, JsonSchema)]
pub struct ValidateArgs {
    /// The flow's YAML.
    pub yaml: String,
}

/// Checks a flow's YAML with the parser the hub loads flows with, publishing nothing: `{"ok":
/// true, "flow"}`, or `{"ok": false, "error", "line"?, "column"?}`.
#[tool(read_only, idempotent, rest = "POST /v1/flows/validate")]
pub async fn validate_flow(cx: &Cx<Config>, args: ValidateArgs) -> Result<Value, Error> {
    let loaded = cx.state().current();
    Ok(match flows::parse(&args.yaml, &loaded.capabilities) {
        Ok(flow) => json!({ "ok": true, "flow": summary(&flow) }),
        Err(invalid) => {
            let mut verdict = json!({ "ok": false });
            verdict.as_object_mut().expect("an object").extend(to_map(&invalid));
            verdict
        }
    })
}

fn to_map(invalid: &Invalid) -> Map<String, Value> {
    match serde_json::to_value(invalid) {
        Ok(Value::Object(map)) => map,
        _ => Map::from_iter([("error".to_owned(), json!(invalid.error))]),
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct RunArgs {
    /// The published flow's name.
    pub name: String,
    /// The state the flow starts from.
    #[serde(default)]
    pub state: Map<String, Value>,
}

/// Runs a published flow on a state: `{"outcome", "data", "path"}`.
#[tool(rest = "POST /v1/flows/{name}/run")]
pub async fn run_flow(cx: &Cx<Config>, args: RunArgs) -> Result<Value, Error> {
    let loaded = cx.state().current();
    let flow =
        loaded.flows.get(&args.name).ok_or_else(|| Error::not_found(format!("no flow {:?} is loaded", args.name)))?;
    let run = flows::run(flow, &Value::Object(args.state), &loaded.capabilities, Transport::Live).await;
    serde_json::to_value(run).map_err(|e| Error::internal(e.to_string()))
}

#[derive(Deserialize, JsonSchema)]
pub struct DraftArgs {
    /// The draft flow's YAML.
    pub yaml: String,
    /// The state the draft starts from.
    #[serde(default)]
    pub state: Map<String, Value>,
    /// `replay` gives the draft's `recorded` answers and calls nothing; `live` calls the
    /// capabilities; `record` calls them and returns their answers as recordings.
    #[serde(default)]
    pub transport: Transport,
}

/// A draft that is not a valid flow (422).
#[derive(Serialize)]
pub struct InvalidDraft {
    #[serde(flatten)]
    invalid: Invalid,
}

impl ErrorBody for InvalidDraft {
    fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidInput
    }
}

/// Runs a draft once without publishing it: `{"transport", "outcome", "data", "path",
/// "recorded"?}`.
#[tool(rest = "POST /v1/drafts/try")]
pub async fn try_draft(cx: &Cx<Config>, args: DraftArgs) -> Result<Value, InvalidDraft> {
    let loaded = cx.state().current();
    let flow = flows::parse(&args.yaml, &loaded.capabilities).map_err(|invalid| InvalidDraft { invalid })?;
    let run = flows::run(&flow, &Value::Object(args.state), &loaded.capabilities, args.transport).await;
    let mut answer = json!({ "transport": args.transport });
    if let Ok(Value::Object(run)) = serde_json::to_value(&run) {
        answer.as_object_mut().expect("an object").extend(run);
    }
    Ok(answer)
}
