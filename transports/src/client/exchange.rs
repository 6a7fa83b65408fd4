//! One request and everything that belongs to it until its result: progress, logs, the server's
//! questions, and under 2026-07-28 the rounds of a multi-round request (an `input_required`
//! result is answered by retrying with `inputResponses` and the `requestState`) and the polling of
//! a task, so that a caller handles both eras alike. Dropping an exchange before its result
//! cancels the request.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tooltable::transport::jsonrpc::{RequestId, RpcError};

use super::peer::{ASKING, Arrival, Kind, Peer, response};
use super::{ClientError, Notification};

/// The most rounds of input one request may take.
const MAX_ROUNDS: usize = 32;
/// The most questions one round may ask.
const MAX_QUESTIONS: usize = 64;
/// The bounds of the pause between polls of a task.
const SHORTEST_POLL: Duration = Duration::from_millis(50);
const LONGEST_POLL: Duration = Duration::from_secs(5);

/// The settings of one request; defaults from the client's [`Options`](super::Options).
#[derive(Debug, Clone, Default)]
pub struct Call {
    /// How long the request may wait for the server (time spent answering its questions does
    /// not count).
    pub timeout: Option<Duration>,
    /// The client capabilities this request declares (2026-07-28; the handshake's are fixed).
    pub capabilities: Option<Value>,
}

impl Call {
    /// Sets [`Call::timeout`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
    /// Sets [`Call::capabilities`].
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = Some(capabilities);
        self
    }
}

/// What an exchange hears, in the order the server sent it; [`Event::Done`] is the last.
#[derive(Debug)]
pub enum Event {
    /// The request's progress (`notifications/progress`).
    Progress {
        /// How far the request has come, increasing with each report.
        progress: f64,
        /// Where progress ends, when the server knows.
        total: Option<f64>,
        /// What the server is doing, for a person.
        message: Option<String>,
    },
    /// A log message of the request's (`notifications/message`).
    Log {
        /// `debug` to `emergency`, as the server gave it.
        level: String,
        /// The name of the logger, when the server gave one.
        logger: Option<String>,
        /// What was logged: a message or any JSON.
        data: Value,
    },
    /// The server needs answers to go on: give them with [`Exchange::answer`].
    Input(Input),
    /// A notification of a `subscriptions/listen`.
    Notification(Notification),
    /// The result, or why there is none.
    Done(Result<Value, ClientError>),
}

/// Questions the server asks during a request: a request to the client (handshake revisions),
/// the `inputRequests` of an `input_required` result, or those of a task waiting for input.
#[derive(Debug)]
pub struct Input {
    /// What the server asks, all to be answered at once.
    pub questions: Vec<Question>,
    origin: Origin,
}

/// One question: the request the client is asked to answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// Its key in `inputRequests`, or the id of the server's request.
    pub key: String,
    /// `sampling/createMessage`, `elicitation/create`, `roots/list`, ...
    pub method: String,
    /// The request's params.
    pub params: Value,
}

#[derive(Debug, Clone)]
enum Origin {
    Request(RequestId),
    Round { state: Option<Value> },
    Task { task_id: String },
}

/// What the exchange waits for now.
#[derive(Debug)]
enum Step {
    /// The result of the request (or of its latest round).
    Result,
    /// The answer to `tasks/get` of a task.
    Poll {
        task_id: String,
        every: Duration,
    },
    /// The acknowledgment of `tasks/update`.
    Update {
        task_id: String,
        every: Duration,
    },
    /// Answers to a round's questions, before the request is sent again.
    Answers,
    Done,
}

/// A request in flight. Read its events with [`Exchange::next`] until [`Event::Done`]. A request
/// may take at most 32 rounds of input of at most 64 questions each; past them it fails.
#[derive(Debug)]
pub struct Exchange {
    peer: Arc<Peer>,
    method: String,
    params: Value,
    call: Call,
    /// The id of the message the exchange waits on now.
    id: RequestId,
    arrivals: mpsc::UnboundedReceiver<Arrival>,
    sender: mpsc::UnboundedSender<Arrival>,
    step: Step,
    deadline: Instant,
    /// Questions given out and not answered yet; the deadline stands still meanwhile.
    asked: usize,
    asked_at: Option<Instant>,
    rounds: usize,
    /// An outcome to give at the next [`Exchange::next`].
    ready: Option<Result<Value, ClientError>>,
}

impl Exchange {
    /// Sends `method` with `params` (an object or null).
    pub(crate) fn start(peer: &Arc<Peer>, method: &str, params: Value, call: Call) -> Exchange {
        let (sender, arrivals) = mpsc::unbounded_channel();
        let timeout = call.timeout.unwrap_or(peer.options.timeout);
        let mut exchange = Exchange {
            peer: Arc::clone(peer),
            method: method.to_owned(),
            params,
            call,
            id: RequestId::Number(0),
            arrivals,
            sender,
            step: Step::Result,
            deadline: Instant::now() + timeout,
            asked: 0,
            asked_at: None,
            rounds: 0,
            ready: None,
        };
        let params = exchange.params.clone();
        exchange.send(method, params);
        exchange
    }

    /// The id of the request (of its latest round) as sent.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// Sends one message of the exchange, with the `_meta` its era needs and a progress token.
    fn send(&mut self, method: &str, params: Value) {
        let id = self.peer.next_id();
        self.id = id.clone();
        let kind = match method {
            "subscriptions/listen" => Kind::Listen,
            m if ASKING.contains(&m) => Kind::Asking,
            _ => Kind::Plain,
        };
        if let Err(e) = self.peer.register(&id, kind, self.sender.clone()) {
            self.ready = Some(Err(e));
            return;
        }
        let params = self.peer.with_meta(method, params, &id, self.call.capabilities.as_ref());
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.peer.send_request(&id, message);
    }

    /// The next event; [`Event::Done`] once, then `Done` with [`ClientError::Closed`] again.
    pub async fn next(&mut self) -> Event {
        loop {
            if let Some(outcome) = self.ready.take() {
                self.finish();
                return Event::Done(outcome);
            }
            if matches!(self.step, Step::Done) {
                return Event::Done(Err(ClientError::Closed("the exchange is over".into())));
            }
            let arrival = match self.asked_at {
                // Waiting for the caller's answers: the server is not the one being slow.
                Some(_) if matches!(self.step, Step::Answers) => return self.stalled(),
                Some(_) => self.arrivals.recv().await,
                None => match tokio::time::timeout_at(self.deadline, self.arrivals.recv()).await {
                    Ok(arrival) => arrival,
                    Err(_) => {
                        let timeout = self.call.timeout.unwrap_or(self.peer.options.timeout);
                        self.peer.cancel(&self.id, "the request timed out");
                        self.ready = Some(Err(ClientError::Timeout(timeout)));
                        continue;
                    }
                },
            };
            let Some(arrival) = arrival else {
                self.ready = Some(Err(ClientError::Closed("the connection ended".into())));
                continue;
            };
            if let Some(event) = self.arrived(arrival) {
                return event;
            }
        }
    }

    /// `next` while the caller still owes answers to a round: there is nothing to wait for.
    fn stalled(&mut self) -> Event {
        self.ready = None;
        self.finish();
        Event::Done(Err(ClientError::Protocol("the questions of the round were not answered".into())))
    }

    fn arrived(&mut self, arrival: Arrival) -> Option<Event> {
        match arrival {
            Arrival::Heard(event) => Some(event),
            Arrival::Notification(n) => Some(Event::Notification(n)),
            Arrival::Request { id, method, params } => {
                self.asking();
                let question = Question { key: id.to_string(), method, params };
                Some(Event::Input(Input { questions: vec![question], origin: Origin::Request(id) }))
            }
            Arrival::Lost { id, error } if id == self.id => {
                self.ready = Some(Err(error));
                None
            }
            Arrival::Response { id, result } if id == self.id => self.responded(result),
            // A round, a poll or an update superseded since.
            Arrival::Lost { .. } | Arrival::Response { .. } => None,
        }
    }

    /// A response to the message the exchange waits on.
    fn responded(&mut self, result: Result<Value, RpcError>) -> Option<Event> {
        let value = match result {
            Ok(value) => value,
            Err(error) => {
                self.ready = Some(Err(ClientError::Rpc(error)));
                return None;
            }
        };
        match std::mem::replace(&mut self.step, Step::Result) {
            Step::Poll { task_id, every } => self.polled(task_id, every, value),
            Step::Update { task_id, every } => {
                self.poll_later(task_id, every);
                None
            }
            Step::Result | Step::Answers | Step::Done => match value.get("resultType").and_then(Value::as_str) {
                Some("input_required") => self.round(value),
                Some("task") => {
                    let task = value.get("task").unwrap_or(&value);
                    match task.get("taskId").and_then(Value::as_str) {
                        Some(task_id) => {
                            let every = poll_interval(task);
                            self.poll_later(task_id.to_owned(), every);
                            None
                        }
                        None => self.fail("a task result names no taskId"),
                    }
                }
                _ => {
                    self.ready = Some(Ok(value));
                    None
                }
            },
        }
    }

    /// An `input_required` result: its questions, answered before the request is sent again.
    fn round(&mut self, value: Value) -> Option<Event> {
        self.rounds += 1;
        if self.rounds > MAX_ROUNDS {
            return self.fail(&format!("the server asked for input more than {MAX_ROUNDS} times"));
        }
        let questions = match questions(value.get("inputRequests")) {
            Ok(questions) => questions,
            Err(why) => return self.fail(&why),
        };
        let state = value.get("requestState").cloned();
        if questions.is_empty() {
            // Nothing to ask: the request is sent again at once, with its state.
            self.retry(state, Map::new());
            return None;
        }
        self.step = Step::Answers;
        self.asking();
        Some(Event::Input(Input { questions, origin: Origin::Round { state } }))
    }

    /// A `tasks/get` answer: done, failed, waiting for input, or working still.
    fn polled(&mut self, task_id: String, every: Duration, task: Value) -> Option<Event> {
        let task = task.get("task").cloned().unwrap_or(task);
        let every = task.get("pollIntervalMs").map_or(every, |_| poll_interval(&task));
        match task.get("status").and_then(Value::as_str) {
            Some("completed") => {
                self.ready = Some(Ok(task.get("result").cloned().unwrap_or(Value::Null)));
                None
            }
            Some("failed") => {
                let error = task.get("error").cloned().and_then(|e| serde_json::from_value::<RpcError>(e).ok());
                let error = error.unwrap_or_else(|| RpcError::internal("the task failed"));
                self.ready = Some(Err(ClientError::Rpc(error)));
                None
            }
            Some("cancelled") => {
                self.ready = Some(Err(ClientError::Closed("the task was cancelled".into())));
                None
            }
            Some("input_required") => match questions(task.get("inputRequests")) {
                Ok(questions) if !questions.is_empty() => {
                    self.step = Step::Update { task_id: task_id.clone(), every };
                    self.asking();
                    Some(Event::Input(Input { questions, origin: Origin::Task { task_id } }))
                }
                Ok(_) => {
                    self.poll_later(task_id, every);
                    None
                }
                Err(why) => self.fail(&why),
            },
            _ => {
                self.poll_later(task_id, every);
                None
            }
        }
    }

    /// Polls the task after its interval.
    fn poll_later(&mut self, task_id: String, every: Duration) {
        self.step = Step::Poll { task_id: task_id.clone(), every };
        let id = self.peer.next_id();
        self.id = id.clone();
        if let Err(e) = self.peer.register(&id, Kind::Plain, self.sender.clone()) {
            self.ready = Some(Err(e));
            return;
        }
        let peer = Arc::clone(&self.peer);
        let params = peer.with_meta("tasks/get", json!({ "taskId": task_id }), &id, self.call.capabilities.as_ref());
        self.peer.runtime.spawn(async move {
            tokio::time::sleep(every).await;
            peer.send_request(&id, json!({ "jsonrpc": "2.0", "id": id, "method": "tasks/get", "params": params }));
        });
    }

    /// Gives the answers to questions the exchange handed out, keyed like them; an error says
    /// they cannot be given, which ends a round or a task with that error.
    pub fn answer(&mut self, input: Input, answers: Result<Map<String, Value>, RpcError>) {
        if self.asked > 0 {
            self.asked -= 1;
        }
        if self.asked == 0
            && let Some(at) = self.asked_at.take()
        {
            self.deadline += at.elapsed();
        }
        match input.origin {
            Origin::Request(id) => {
                let key = id.to_string();
                let answer = answers.map(|mut a| a.remove(&key).unwrap_or_else(|| json!({})));
                self.peer.post(response(&id, answer));
            }
            Origin::Round { state } => match answers {
                Ok(answers) => self.retry(state, answers),
                Err(e) => self.ready = Some(Err(ClientError::Unanswered(e))),
            },
            Origin::Task { task_id } => match answers {
                Ok(answers) => {
                    let params = json!({ "taskId": task_id, "inputResponses": answers });
                    let every = match &self.step {
                        Step::Update { every, .. } => *every,
                        _ => SHORTEST_POLL,
                    };
                    self.step = Step::Update { task_id, every };
                    self.send("tasks/update", params);
                }
                Err(e) => {
                    self.cancel_task(&task_id);
                    self.ready = Some(Err(ClientError::Unanswered(e)));
                }
            },
        }
    }

    /// Sends the request again with the answers of the round and the server's state.
    fn retry(&mut self, state: Option<Value>, answers: Map<String, Value>) {
        let mut params = match self.params.clone() {
            Value::Object(p) => p,
            _ => Map::new(),
        };
        if !answers.is_empty() {
            params.insert("inputResponses".into(), Value::Object(answers));
        }
        if let Some(state) = state {
            params.insert("requestState".into(), state);
        }
        self.step = Step::Result;
        let method = self.method.clone();
        self.send(&method, Value::Object(params));
    }

    fn asking(&mut self) {
        self.asked += 1;
        self.asked_at.get_or_insert_with(Instant::now);
    }

    fn fail(&mut self, why: &str) -> Option<Event> {
        self.ready = Some(Err(ClientError::Protocol(why.to_owned())));
        None
    }

    fn finish(&mut self) {
        self.peer.forget(&self.id);
        self.step = Step::Done;
    }

    fn cancel_task(&self, task_id: &str) {
        let id = self.peer.next_id();
        let params =
            self.peer.with_meta("tasks/cancel", json!({ "taskId": task_id }), &id, self.call.capabilities.as_ref());
        self.peer.send_request(&id, json!({ "jsonrpc": "2.0", "id": id, "method": "tasks/cancel", "params": params }));
    }
}

impl Drop for Exchange {
    fn drop(&mut self) {
        match &self.step {
            Step::Done => {}
            Step::Poll { task_id, .. } | Step::Update { task_id, .. } => {
                self.peer.forget(&self.id);
                self.cancel_task(&task_id.clone());
            }
            Step::Result | Step::Answers => self.peer.cancel(&self.id, "the request was abandoned"),
        }
    }
}

/// The questions of `inputRequests`, each `{method, params}` under its key.
fn questions(input: Option<&Value>) -> Result<Vec<Question>, String> {
    let Some(input) = input.filter(|v| !v.is_null()) else { return Ok(Vec::new()) };
    let input = input.as_object().ok_or("inputRequests is no object")?;
    if input.len() > MAX_QUESTIONS {
        return Err(format!("a round asked more than {MAX_QUESTIONS} questions"));
    }
    input
        .iter()
        .map(|(key, q)| match q.get("method").and_then(Value::as_str) {
            Some(method) => Ok(Question {
                key: key.clone(),
                method: method.to_owned(),
                params: q.get("params").cloned().unwrap_or_else(|| json!({})),
            }),
            None => Err(format!("the input request {key:?} names no method")),
        })
        .collect()
}

fn poll_interval(task: &Value) -> Duration {
    let ms = task.get("pollIntervalMs").and_then(Value::as_u64).unwrap_or(500);
    Duration::from_millis(ms).clamp(SHORTEST_POLL, LONGEST_POLL)
}

impl Peer {
    /// The params with the `_meta` of the era: under 2026-07-28 the revision, the client and
    /// its capabilities, and the log level; for a request that may report progress, in every
    /// era, the progress token (the request's id).
    pub(crate) fn with_meta(&self, method: &str, params: Value, id: &RequestId, capabilities: Option<&Value>) -> Value {
        let mut params = match params {
            Value::Object(p) => p,
            _ => Map::new(),
        };
        let stateless = self.speaks_stateless();
        let asking = ASKING.contains(&method);
        if !stateless && !asking {
            return Value::Object(params);
        }
        let meta = params.entry("_meta").or_insert_with(|| json!({}));
        let Some(meta) = meta.as_object_mut() else { return Value::Object(params) };
        if asking {
            meta.insert("progressToken".into(), json!(id));
        }
        if stateless {
            let options = &self.options;
            let capabilities = capabilities.unwrap_or(&options.capabilities);
            meta.insert("io.modelcontextprotocol/protocolVersion".into(), json!(self.stateless_version()));
            meta.insert(
                "io.modelcontextprotocol/clientInfo".into(),
                json!({ "name": options.name, "version": options.version }),
            );
            meta.insert("io.modelcontextprotocol/clientCapabilities".into(), capabilities.clone());
            if let Some(level) = &options.log_level {
                meta.insert("io.modelcontextprotocol/logLevel".into(), json!(level));
            }
        }
        Value::Object(params)
    }
}
