//! Multi Round-Trip Requests (revision 2026-07-28). An operation asks the client through `Cx` the
//! same way in every revision; under 2026-07-28 a question the request has no answer for yet
//! stops the operation, and the request is answered `input_required` with the questions and a
//! signed `requestState` holding every answer so far. The client's retry runs the operation
//! again from the start, and this time each question already answered returns its answer at
//! once, so the operation gets one step further each round (see docs/architecture.md).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::Notify;

use crate::context::InputRequest;
use crate::jsonrpc::RpcError;
use crate::request_state::{self, StateKey};

/// The most questions one round may ask, and the most answers a request may carry.
pub const MAX_INPUTS: usize = 64;

/// What a stateless request brought of earlier rounds, read before it runs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RoundInput {
    /// What the request's state is bound to.
    request: String,
    answers: Map<String, Value>,
}

impl RoundInput {
    /// The answers of `requestState` (checked) and of `inputResponses`, for a request that can ask.
    pub(crate) fn read(method: &str, params: &Option<Value>, key: &StateKey) -> Result<Self, RpcError> {
        let request = request_state::request_digest(method, params);
        let field = |name: &str| params.as_ref().and_then(|p| p.get(name));
        let mut answers = match field("requestState") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::String(state)) => {
                key.open(state, &request).map_err(|e| RpcError::invalid_params(e.to_string()))?
            }
            Some(_) => return Err(RpcError::invalid_params("requestState must be the string the server sent")),
        };
        match field("inputResponses") {
            None | Some(Value::Null) => {}
            Some(Value::Object(responses)) => answers.extend(responses.clone()),
            Some(_) => {
                return Err(RpcError::invalid_params("inputResponses must be an object keyed like inputRequests"));
            }
        }
        if answers.len() > MAX_INPUTS {
            return Err(RpcError::invalid_params(format!("a request carries at most {MAX_INPUTS} input responses")));
        }
        Ok(RoundInput { request, answers })
    }
}

/// One round of a running request: the answers it has and the questions it still needs.
pub(crate) struct Round {
    input: RoundInput,
    asked: Mutex<Map<String, Value>>,
    next_key: AtomicUsize,
    /// Signalled when the operation asked something it has no answer for.
    pub(crate) stuck: Notify,
}

/// A question: the request the client would have been sent under earlier revisions.
#[derive(Serialize)]
struct Question<'a> {
    method: &'a str,
    params: &'a Value,
}

/// A question as `inputRequests` lists it.
pub(crate) fn question(method: &str, params: &Value) -> Value {
    serde_json::to_value(Question { method, params }).unwrap_or(Value::Null)
}

impl Round {
    pub(crate) fn new(input: RoundInput) -> Self {
        Round { input, asked: Mutex::new(Map::new()), next_key: AtomicUsize::new(0), stuck: Notify::new() }
    }

    /// A key for a question the operation did not name: the same one in every round, as long
    /// as the operation asks in the same order.
    pub(crate) fn next_key(&self) -> String {
        format!("input-{}", self.next_key.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// The answers to `questions` when all have one; else each unanswered one is recorded for the
    /// `input_required` result and `None` comes back (the operation is then stopped).
    pub(crate) fn answers(&self, questions: &[(String, InputRequest)]) -> Option<Map<String, Value>> {
        let missing: Vec<_> = questions.iter().filter(|(key, _)| !self.input.answers.contains_key(key)).collect();
        if missing.is_empty() {
            return Some(questions.iter().map(|(key, _)| (key.clone(), self.input.answers[key].clone())).collect());
        }
        let mut asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        for (key, q) in missing {
            if asked.len() < MAX_INPUTS {
                asked.insert(key.clone(), q.question());
            }
        }
        self.stuck.notify_one();
        None
    }

    /// The `input_required` result: the questions asked, and the state that carries the answers.
    pub(crate) fn input_required(&self, key: &StateKey) -> InputRequired {
        let asked = std::mem::take(&mut *self.asked.lock().unwrap_or_else(|p| p.into_inner()));
        InputRequired { input_requests: asked, request_state: key.seal(&self.input.request, &self.input.answers) }
    }
}

/// The body of an `InputRequiredResult`, less the fields every stateless result has.
#[derive(Debug, Serialize)]
pub(crate) struct InputRequired {
    #[serde(rename = "inputRequests")]
    input_requests: Map<String, Value>,
    #[serde(rename = "requestState")]
    request_state: String,
}
