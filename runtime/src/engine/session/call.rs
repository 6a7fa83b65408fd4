//! One running request: what it knows of itself ([`CallScope`], the engine's side of `Cx`), how
//! it is started (in place, then as a task if it has to wait), and how it ends.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Map, Value};

use super::{SessionCore, catch_panic};
use crate::api::context::{CallSide, ClientRequestError, Cx, Era, InputRequest, RequestContext};
use crate::api::lock;
use crate::api::logging::LogLevel;
use crate::api::tool::BoxFuture;
use crate::engine::era::RequestEra;
use crate::engine::jsonrpc::{self, RequestId, RpcError};
use crate::engine::methods::{logging, notifications};
use crate::engine::outbox::Destination;
use crate::engine::stateless::{StatelessResult, rounds, serialized};
use crate::engine::tasks::{Task, TaskScope};
use crate::engine::wire::WireResult;

/// A call in flight, as the session holds it.
pub(crate) struct InFlight<S> {
    /// None while the call is first polled in place, before it becomes a task.
    abort: Option<tokio::task::AbortHandle>,
    scope: Arc<CallScope<S>>,
}

impl<S> InFlight<S> {
    /// Marks the call cancelled for code that checks, and drops it at its next await.
    pub(crate) fn stop(self) {
        self.scope.cancelled.store(true, Ordering::Release);
        if let Some(abort) = self.abort {
            abort.abort();
        }
    }
}

/// What one running request knows of itself.
pub(crate) struct CallScope<S> {
    pub(crate) session: Arc<SessionCore<S>>,
    pub(crate) request_id: RequestId,
    pub(crate) era: RequestEra,
    /// For a 2026-07-28 request that may ask the client, this round's answers and questions: made
    /// when first needed ([`round`](Self::round)), as most calls never ask.
    round: OnceLock<rounds::Round>,
    /// Once the call runs as a task (the tasks extension), where its questions go.
    pub(crate) task: OnceLock<Arc<TaskScope>>,
    /// Whether the call may become a task: the request declared the extension, the tool
    /// supports tasks.
    pub(crate) may_become_task: AtomicBool,
    /// Signalled to make the call a task: at once, or when its code asks (`Cx::start_task`).
    pub(crate) become_task: tokio::sync::Notify,
    /// A client capability a question needed and the request had not declared.
    pub(crate) missing_capability: Mutex<Option<&'static str>>,
    progress_token: Option<Value>,
    last_progress: Mutex<Option<f64>>,
    cancelled: AtomicBool,
}

/// How a request ends: with its result, or (2026-07-28) with questions for the client first, or
/// with the task that will compute its result.
pub(crate) enum Reply<T> {
    Complete(T),
    InputRequired(rounds::InputRequired),
    Task(Task),
}

impl<S: Send + Sync + 'static> SessionCore<S> {
    /// Runs `work` in place until it first has to wait, then as a task; its answer (how the
    /// request ends) is sent unless the request is cancelled first.
    pub(crate) fn spawn<F, Fut, T>(
        self: &Arc<Self>,
        id: RequestId,
        era: RequestEra,
        context: &RequestContext,
        progress_token: Option<Value>,
        work: F,
    ) where
        F: FnOnce(Cx<S>, &Arc<CallScope<S>>) -> Fut,
        Fut: Future<Output = Result<Reply<T>, RpcError>> + Send + 'static,
        T: WireResult + Send + 'static,
    {
        let scope = Arc::new(CallScope {
            session: Arc::clone(self),
            request_id: id.clone(),
            era,
            round: OnceLock::new(),
            task: OnceLock::new(),
            may_become_task: AtomicBool::new(false),
            become_task: tokio::sync::Notify::new(),
            missing_capability: Mutex::new(None),
            progress_token,
            last_progress: Mutex::new(None),
            cancelled: AtomicBool::new(false),
        });
        let call: Arc<dyn CallSide> = scope.clone();
        let work = work(Cx::new(self.server.side(), context.clone(), Some(call)), &scope);
        // Boxed as it is: moved once, not wrapped. A round that asks what it has no answer for is
        // stopped there, answered `input_required`: seen after its first poll, or, once it runs
        // as a task, by the wrapper that task alone puts around it.
        let mut fut = catch_panic(work);
        {
            // Checked and registered under one lock: no request with the same id slips in between.
            let mut in_flight = lock(&self.in_flight);
            if self.is_in_flight(&in_flight, &id) {
                drop(in_flight);
                return self.refuse_duplicate(&id);
            }
            in_flight.insert(id.clone(), InFlight { abort: None, scope: Arc::clone(&scope) });
        }
        // Most calls finish without waiting on anything: answer those at once, sparing a task.
        let mut noop = std::task::Context::from_waker(std::task::Waker::noop());
        if let std::task::Poll::Ready(result) = Pin::new(&mut fut).poll(&mut noop) {
            return self.finish(id, result.unwrap_or_else(panicked), &scope.era);
        }
        if let Some(round) = scope.round.get().filter(|round| round.awaits_input()) {
            drop(fut);
            let asked = round.input_required(&self.server.config().state_key);
            return self.finish(id, Ok(Reply::<T>::InputRequired(asked)), &scope.era);
        }
        let core = Arc::clone(self);
        let task_id = id.clone();
        // Under the lock, a cancel cannot slip in between this check and the registration, and
        // the task cannot finish before it is registered.
        let mut in_flight = lock(&self.in_flight);
        let Some(call) = in_flight.get_mut(&id) else {
            // Cancelled (or the session closed) while it first ran: never started as a task.
            return;
        };
        let handle = tokio::spawn(async move {
            let result = match scope.round() {
                None => fut.await,
                Some(round) => {
                    let key = core.server.config().state_key.clone();
                    tokio::select! {
                        biased;
                        result = fut => result,
                        () = round.stuck.notified() => Ok(Ok(Reply::InputRequired(round.input_required(&key)))),
                    }
                }
            };
            core.finish(task_id, result.unwrap_or_else(panicked), &scope.era);
        });
        call.abort = Some(handle.abort_handle());
    }

    /// Sends how a call ended, unless it was cancelled first.
    fn finish<T: WireResult>(&self, id: RequestId, result: Result<Reply<T>, RpcError>, era: &RequestEra) {
        // Written (and the result let go of) before the lock, which every call of the session
        // takes: its answer is wasted only when the call was cancelled meanwhile.
        let json = self.ended(&id, result, era);
        let mut in_flight = lock(&self.in_flight);
        let call = in_flight.remove(&id);
        if call.is_some() {
            // Sent under the lock, so no progress for this request can follow the response.
            self.send(json, Destination::Response(id));
        }
        if in_flight.is_empty() {
            self.idle.notify_waiters();
        }
        drop(in_flight);
        drop(call);
    }

    /// The response to a call that ended so; under a handshake, a result written as its type
    /// writes it.
    fn ended<T: WireResult>(&self, id: &RequestId, result: Result<Reply<T>, RpcError>, era: &RequestEra) -> String {
        let meta = self.server.result_meta();
        match result {
            Ok(Reply::InputRequired(input)) => StatelessResult::input_required(input, meta).response(id, serialized),
            Ok(Reply::Task(task)) => StatelessResult::task(task, meta).response(id, serialized),
            Ok(Reply::Complete(value)) => match era {
                RequestEra::Handshake => jsonrpc::written_result(id, &value),
                RequestEra::Stateless(request) => {
                    StatelessResult::complete(value, request, meta, self.server.config().cache)
                        .response(id, T::write_json)
                }
            },
            Err(e) => self.answer_text::<()>(id, Err(e), era),
        }
    }
}

fn panicked<T>(message: String) -> Result<T, RpcError> {
    Err(RpcError::internal(format!("the handler panicked: {message}")))
}

impl<S: Send + Sync + 'static> CallScope<S> {
    fn stateless(&self) -> bool {
        self.era.is_stateless()
    }

    /// The round of a request that can ask the client; none for one that cannot.
    fn round(&self) -> Option<&rounds::Round> {
        match &self.era {
            RequestEra::Stateless(meta) if rounds::Round::can_ask(meta) => {
                Some(self.round.get_or_init(|| rounds::Round::of(meta)))
            }
            _ => None,
        }
    }
}

impl<S: Send + Sync + 'static> CallSide for CallScope<S> {
    fn request_id(&self) -> &RequestId {
        &self.request_id
    }

    fn era(&self) -> Era {
        self.era.era()
    }

    fn protocol_version(&self) -> &'static str {
        match &self.era {
            RequestEra::Stateless(meta) => meta.version,
            RequestEra::Handshake => lock(&self.session.state).protocol_version,
        }
    }

    fn client_capabilities(&self) -> Value {
        match &self.era {
            RequestEra::Stateless(meta) => Value::clone(&meta.client_capabilities),
            RequestEra::Handshake => self.session.client_capabilities(),
        }
    }

    fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else { return };
        let mut last = lock(&self.last_progress);
        if last.is_some_and(|l| progress <= l) || !progress.is_finite() {
            return;
        }
        let in_flight = lock(&self.session.in_flight);
        if !in_flight.contains_key(&self.request_id) {
            return;
        }
        *last = Some(progress);
        let params = notifications::Progress::new(token, progress, total, message);
        self.session.notify(notifications::PROGRESS, &params, Some(&self.request_id));
        drop(in_flight);
    }

    fn log_enabled(&self, level: LogLevel) -> bool {
        match &self.era {
            // A task's request has been answered: there is no stream left to log on.
            _ if self.task.get().is_some() => false,
            RequestEra::Stateless(meta) => meta.log_level.is_some_and(|min| level >= min),
            RequestEra::Handshake => level >= lock(&self.session.state).log_level,
        }
    }

    fn log(&self, level: LogLevel, data: Value) {
        let logger = Some(self.session.server.info().name.as_str());
        logging::send(&self.session, level, logger, data, Some(&self.request_id));
    }

    fn is_cancelled(&self) -> bool {
        let cancelled = |flag: &AtomicBool| flag.load(Ordering::Acquire);
        cancelled(&self.cancelled) || self.task.get().is_some_and(|t| cancelled(&t.cancelled))
    }

    fn awaits_input(&self) -> bool {
        self.round.get().is_some_and(|round| round.awaits_input())
    }

    fn close_stream(&self) {
        if !self.stateless() {
            self.session.close_stream(&self.request_id);
        }
    }

    fn elicitation_complete(&self, elicitation_id: &str) {
        if !self.stateless() {
            let params = notifications::ElicitationComplete { elicitation_id };
            self.session.notify(notifications::ELICITATION_COMPLETE, &params, None);
        }
    }

    fn start_task(&self) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            if self.task.get().is_none() && self.may_become_task.load(Ordering::Acquire) {
                self.become_task.notify_one();
                // The session moves this future into the task, which binds the scope before its
                // first poll; until then it waits here.
                std::future::poll_fn(|_| match self.task.get() {
                    Some(_) => std::task::Poll::Ready(()),
                    None => std::task::Poll::Pending,
                })
                .await;
            }
            self.task.get().is_some()
        })
    }

    fn ask(
        &self,
        questions: Vec<(String, InputRequest)>,
    ) -> BoxFuture<'_, Result<Map<String, Value>, ClientRequestError>> {
        Box::pin(async move {
            let capabilities = self.client_capabilities();
            if let Some(q) = questions.iter().map(|(_, q)| q).find(|q| !q.declared(&capabilities)) {
                *lock(&self.missing_capability) = Some(q.capability());
                return Err(ClientRequestError::NotSupported { capability: q.capability() });
            }
            if let Some(task) = self.task.get() {
                let asked = questions.iter().map(|(k, q)| (k.clone(), rounds::question(q)));
                return task.ask(asked.collect()).await;
            }
            match self.round() {
                Some(round) => {
                    match round.answers(&questions) {
                        Some(answers) => Ok(answers),
                        // The call is stopped and answered `input_required` by the session.
                        None => std::future::pending().await,
                    }
                }
                None if self.stateless() => Err(ClientRequestError::NoSession),
                None => {
                    let mut answers = Map::new();
                    for (key, q) in questions {
                        let asked = self.session.request_client(q.method(), q.params(false), Some(&self.request_id));
                        answers.insert(key, asked.await?);
                    }
                    Ok(answers)
                }
            }
        })
    }

    fn ask_one(&self, question: InputRequest) -> BoxFuture<'_, Result<Value, ClientRequestError>> {
        Box::pin(async move {
            let key = match (self.task.get(), self.round()) {
                (Some(task), _) => task.next_key(),
                (None, Some(round)) => round.next_key(),
                (None, None) => String::from("input"),
            };
            let mut answers = self.ask(vec![(key.clone(), question)]).await?;
            Ok(answers.remove(&key).unwrap_or(Value::Null))
        })
    }
}
