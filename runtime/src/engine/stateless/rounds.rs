//! Multi Round-Trip Requests (revision 2026-07-28). A tool asks the client through `Cx` the
//! same way in every revision; under 2026-07-28 a question the request has no answer for yet
//! stops the tool, and the request is answered `input_required` with the questions and a
//! signed `requestState` holding every answer so far. The client's retry runs the tool
//! again from the start, and this time each question already answered returns its answer at
//! once, so the tool gets one step further each round (see docs/architecture.md).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::Notify;

use super::RequestMeta;
use super::request_state::{BoundRequest, StateKey};
use crate::api::context::InputRequest;
use crate::api::lock;
use crate::engine::jsonrpc::RpcError;
use crate::engine::params::{self, Field};

/// The most questions one round may ask, and the most answers a request may carry.
pub(crate) const MAX_INPUTS: usize = 64;

/// What a stateless request brought of earlier rounds, read before it runs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RoundInput {
    /// What the request's state is bound to.
    request: BoundRequest,
    answers: Map<String, Value>,
}

/// The params of a request that can ask, as far as its rounds are concerned.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct RoundParams {
    request_state: Field<String>,
    input_responses: Field<Map<String, Value>>,
}

impl RoundInput {
    /// The answers of `requestState` (checked) and of `inputResponses`, for a request that can ask.
    pub(crate) fn read(method: &'static str, params: &Option<Value>, key: &StateKey) -> Result<Self, RpcError> {
        let request = BoundRequest::new(method, params);
        let round: RoundParams = params::read_ref(params);
        let mut answers = match round.request_state {
            Field::Absent | Field::Null => Map::new(),
            Field::Given(state) => {
                key.open(&state, &request.digest()).map_err(|e| RpcError::invalid_params(e.to_string()))?
            }
            Field::Invalid => return Err(RpcError::invalid_params("requestState must be the string the server sent")),
        };
        match round.input_responses {
            Field::Absent | Field::Null => {}
            Field::Given(responses) => answers.extend(responses),
            Field::Invalid => {
                return Err(RpcError::invalid_params("inputResponses must be an object keyed like inputRequests"));
            }
        }
        if answers.len() > MAX_INPUTS {
            return Err(RpcError::invalid_params(format!("a request carries at most {MAX_INPUTS} input responses")));
        }
        Ok(RoundInput { request, answers })
    }

    /// The input of a first round, which brings no answers (no `requestState`, no
    /// `inputResponses`).
    pub(crate) fn first(request: BoundRequest) -> Self {
        RoundInput { request, answers: Map::new() }
    }

    /// Makes this the input of a first round of another `tools/call` (see
    /// [`BoundRequest::call`]), bound in the text this one was bound in.
    pub(crate) fn rebind_first_call(&mut self, name: &str, arguments: Option<&str>) {
        self.answers.clear();
        self.request.bind_call(name, arguments);
    }
}

/// One round of a running request: the answers it has and the questions it still needs.
pub(crate) struct Round {
    /// The request's meta, whose input (what it brought of earlier rounds) the round reads.
    meta: Arc<RequestMeta>,
    asked: Mutex<Map<String, Value>>,
    next_key: AtomicUsize,
    /// Signalled when the tool asked something it has no answer for.
    pub(crate) stuck: Notify,
    /// Set then too, for what looks at the call as it is stopped (the call log).
    asked_unanswered: AtomicBool,
}

/// A question: the request the client would have been sent under earlier revisions.
#[derive(Serialize)]
struct Question<'a> {
    method: &'a str,
    params: Value,
}

/// A question as `inputRequests` (of a round or of a parked task) lists it, in 2026-07-28 params.
pub(crate) fn question(q: &InputRequest) -> Value {
    crate::engine::wire::to_value(&Question { method: q.method(), params: q.params(true) })
}

impl Round {
    /// Whether a request can ask the client: its meta holds its input.
    pub(crate) fn can_ask(meta: &RequestMeta) -> bool {
        meta.input.is_some()
    }

    /// The round of a request that [can ask](Self::can_ask).
    pub(crate) fn of(meta: &Arc<RequestMeta>) -> Self {
        Round {
            meta: Arc::clone(meta),
            asked: Mutex::new(Map::new()),
            next_key: AtomicUsize::new(0),
            stuck: Notify::new(),
            asked_unanswered: AtomicBool::new(false),
        }
    }

    /// The answer the request brought to the question `key`.
    fn given(&self, key: &str) -> Option<&Value> {
        self.meta.input.as_ref().and_then(|input| input.answers.get(key))
    }

    /// Whether the tool asked something this round has no answer for (it is then stopped).
    pub(crate) fn awaits_input(&self) -> bool {
        self.asked_unanswered.load(Ordering::Acquire)
    }

    /// A key for a question the tool did not name: the same one in every round, as long
    /// as the tool asks in the same order.
    pub(crate) fn next_key(&self) -> String {
        format!("input-{}", self.next_key.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// The answers to `questions` when all have one; else each unanswered one is recorded for the
    /// `input_required` result and `None` comes back (the tool is then stopped).
    pub(crate) fn answers(&self, questions: &[(String, InputRequest)]) -> Option<Map<String, Value>> {
        let missing: Vec<_> = questions.iter().filter(|(key, _)| self.given(key).is_none()).collect();
        if missing.is_empty() {
            return questions.iter().map(|(key, _)| Some((key.clone(), self.given(key)?.clone()))).collect();
        }
        let mut asked = lock(&self.asked);
        for (key, q) in missing {
            if asked.len() < MAX_INPUTS {
                asked.insert(key.clone(), question(q));
            }
        }
        self.asked_unanswered.store(true, Ordering::Release);
        self.stuck.notify_one();
        None
    }

    /// The `input_required` result: the questions asked, and the state that carries the answers.
    pub(crate) fn input_required(&self, key: &StateKey) -> InputRequired {
        let asked = std::mem::take(&mut *lock(&self.asked));
        let sealed = self.meta.input.as_ref().map(|input| key.seal(&input.request.digest(), &input.answers));
        InputRequired { input_requests: asked, request_state: sealed.unwrap_or_default() }
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
