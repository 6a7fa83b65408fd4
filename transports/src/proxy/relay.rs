//! The upstream's questions during a call (sampling, elicitation, roots), asked of the gateway's
//! own client through the call's `Cx`, all of one round at once. They are keyed by their order
//! in the call, which is the same each time the call runs: under 2026-07-28 a question the
//! gateway's client has not answered yet stops the call, which runs again from the start once
//! it has, and then finds its answer under the same key.

use serde_json::{Map, Value};
use tooltable::Cx;
use tooltable::context::{ClientRequestError, InputRequest};
use tooltable::transport::jsonrpc::{RpcError, code};

use crate::client::Input;

/// Asks the questions of `input` and gives the answers under the upstream's keys. `asked` counts
/// the questions of this call so far.
pub(crate) async fn answer<S: Send + Sync + 'static>(
    cx: &Cx<S>,
    input: &Input,
    asked: &mut usize,
) -> Result<Map<String, Value>, RpcError> {
    let mut questions = Vec::new();
    let mut answers = Map::new();
    for q in &input.questions {
        *asked += 1;
        match question(&q.method, &q.params) {
            Some(request) => questions.push((format!("relayed-{asked}"), q.key.clone(), request)),
            // A question the runtime has no type for goes as it is.
            None => {
                let answer = cx.request_client(&q.method, q.params.clone()).await.map_err(refusal)?;
                answers.insert(q.key.clone(), answer);
            }
        }
    }
    if questions.is_empty() {
        return Ok(answers);
    }
    let keys: Vec<(String, String)> =
        questions.iter().map(|(ours, theirs, _)| (ours.clone(), theirs.clone())).collect();
    let mut given =
        cx.ask(questions.into_iter().map(|(ours, _, request)| (ours, request)).collect()).await.map_err(refusal)?;
    for (ours, theirs) in keys {
        answers.insert(theirs, given.remove(&ours).unwrap_or(Value::Null));
    }
    Ok(answers)
}

/// The typed question, which checks the client declared what it needs.
fn question(method: &str, params: &Value) -> Option<InputRequest> {
    let text = |key: &str| params.get(key).and_then(Value::as_str).unwrap_or_default();
    match method {
        "sampling/createMessage" => Some(InputRequest::create_message(params.clone())),
        "roots/list" => Some(InputRequest::list_roots()),
        "elicitation/create" if params.get("mode").and_then(Value::as_str) == Some("url") => {
            Some(InputRequest::elicit_url(text("message"), text("url"), text("elicitationId")))
        }
        "elicitation/create" => {
            let schema = params.get("requestedSchema").cloned().unwrap_or_else(|| serde_json::json!({}));
            Some(InputRequest::elicit_form(text("message"), schema))
        }
        _ => None,
    }
}

/// Why the gateway's client gave no answer, as the upstream is told it: the client's own error
/// when it refused, else what is missing.
fn refusal(e: ClientRequestError) -> RpcError {
    match e {
        ClientRequestError::Rejected(error) => error,
        ClientRequestError::NotSupported { .. } | ClientRequestError::NoSession => {
            RpcError::new(code::METHOD_NOT_FOUND, e.to_string())
        }
        ClientRequestError::Closed => RpcError::internal(e.to_string()),
    }
}
