//! Replaying a session against a live server: send each `→` message, collect what comes back, and
//! pair it with the recorded `←` messages.
//!
//! A step waits for what it records: the responses it lists (and, when the session records the
//! answer to its own request nowhere, that answer: a script not yet recorded), the requests the
//! server makes of the client, and the notifications it lists. A notification whose method the
//! step does not list is not compared, unless the session asks for it with a comment line
//! `#! notifications METHOD...` (`*` for every method): a session says what it is about, so a
//! log line it does not show cannot break it. One that came a step sooner than recorded (its
//! host sent on without waiting) counts in the step that records it.
//!
//! ```
//! use tooltable_golden::client::{Client, StdioClient};
//! use tooltable_golden::placeholders::Placeholders;
//! use tooltable_golden::replay::Replayer;
//! use tooltable_golden::session::SessionFile;
//!
//! let session = SessionFile::parse(concat!(
//!     "→ {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\n",
//!     "← {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {}}\n",
//! ))?;
//! let placeholders = Placeholders::standard();
//! # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
//! let server = r#"read request; echo '{"jsonrpc":"2.0","id":1,"result":{}}'"#;
//! let mut client = Client::Stdio(StdioClient::spawn("sh", &["-c", server])?);
//! let verdict = Replayer::new(&session, &placeholders).run(&mut client).await?;
//! assert!(verdict.matched());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod verdict;

use std::time::Duration;

use serde_json::Value;

use crate::client::{Client, ClientError, is_response_to, request_id};
use crate::matching::{self, Bindings};
use crate::placeholders::Placeholders;
use crate::session::{Line, SessionFile, Step};
pub use verdict::{Observed, Verdict};

/// How long the server may take to send its first message (a Python server starting on a loaded
/// machine takes seconds).
pub const STARTUP: Duration = Duration::from_secs(60);
/// How long each answer after that may take.
pub const ANSWER: Duration = Duration::from_secs(20);
/// How long a step that expects no answer waits for an unexpected one.
pub const QUIET: Duration = Duration::from_millis(150);
/// How long a step waits for each notification it lists once its responses have come (over HTTP
/// they travel on another stream).
pub const STRAGGLERS: Duration = Duration::from_secs(2);

/// The comment that asks a session to compare notifications it does not list.
pub const NOTIFICATIONS_DIRECTIVE: &str = "#! notifications";

/// What a step waits for.
#[derive(Debug, Clone, Default)]
struct Plan {
    /// Ids of the responses to wait for.
    responses: Vec<Value>,
    /// How many requests of the server the step records.
    questions: usize,
    /// How many compared notifications the step records.
    notifications: usize,
    /// The notification methods the step compares.
    methods: Vec<String>,
}

/// One replay of one session, step by step.
#[derive(Debug)]
pub struct Replayer<'a> {
    steps: Vec<Step>,
    plans: Vec<Plan>,
    every_notification: bool,
    placeholders: &'a Placeholders,
    bindings: Bindings,
    observed: Vec<Observed>,
    /// Whether the server has sent anything yet.
    heard: bool,
    /// The notifications the last step did not compare.
    passed: Vec<Value>,
}

impl<'a> Replayer<'a> {
    /// A replay of `file` whose answers are normalized with `placeholders`.
    pub fn new(file: &SessionFile, placeholders: &'a Placeholders) -> Self {
        let steps = file.steps();
        let (every_notification, asked) = asked_notifications(file);
        // A request's answer is not waited for where the session records it elsewhere, or
        // records the client cancelling it (a `subscriptions/listen` it ends, say).
        let cancelled = steps
            .iter()
            .filter(|s| s.sent["method"] == "notifications/cancelled")
            .filter_map(|s| s.sent.pointer("/params/requestId"));
        let listed_anywhere: Vec<&Value> = steps
            .iter()
            .flat_map(|s| &s.received)
            .filter(|(_, m)| m.get("method").is_none())
            .filter_map(|(_, m)| m.get("id"))
            .chain(cancelled)
            .collect();
        let plans = steps
            .iter()
            .map(|step| {
                let received = step.received.iter().map(|(_, m)| m);
                let mut plan = Plan { methods: asked.clone(), ..Plan::default() };
                for m in received.clone() {
                    match (m.get("method").and_then(Value::as_str), m.get("id")) {
                        (None, Some(id)) => plan.responses.push(id.clone()),
                        (Some(_), Some(_)) => plan.questions += 1,
                        (Some(method), None) => {
                            plan.notifications += 1;
                            if !plan.methods.iter().any(|m| m == method) {
                                plan.methods.push(method.to_owned());
                            }
                        }
                        (None, None) => {}
                    }
                }
                if let Some(id) = request_id(&step.sent)
                    && !listed_anywhere.contains(&id)
                {
                    plan.responses.push(id.clone());
                }
                plan
            })
            .collect();
        let (bindings, observed) = (Bindings::default(), Vec::new());
        Replayer {
            steps,
            plans,
            every_notification,
            placeholders,
            bindings,
            observed,
            heard: false,
            passed: Vec::new(),
        }
    }

    /// Every step, in order, over `client`.
    pub async fn run(mut self, client: &mut Client) -> Result<Verdict, ClientError> {
        for _ in 0..self.steps.len() {
            self.next(client).await?;
        }
        Ok(self.finish())
    }

    /// The next step over `client` (a driver may change clients between steps).
    pub async fn next(&mut self, client: &mut Client) -> Result<(), ClientError> {
        let index = self.observed.len();
        let (step, plan) = (&self.steps[index], &self.plans[index]);
        let sent = self.bindings.fill(&self.placeholders.fill(&step.sent));
        client.send(&sent).await?;
        let expected: Vec<Value> = step.received.iter().map(|(_, m)| m.clone()).collect();
        // A notification the last step did not compare may be one this step records: it came
        // sooner than when recorded (a host that sends on without waiting).
        let mut got: Vec<Value> = std::mem::take(&mut self.passed)
            .into_iter()
            .filter(|m| expected.iter().any(|e| matching::matches(e, m, &mut self.bindings.clone())))
            .collect();
        let mut passed = Vec::new();
        loop {
            let questions = got.iter().filter(|m| request_id(m).is_some()).count();
            let answered = plan.responses.iter().all(|id| got.iter().any(|m| is_response_to(m, id)));
            if (answered && questions >= plan.questions) || questions > plan.questions {
                break;
            }
            match client.recv(if self.heard { ANSWER } else { STARTUP }).await {
                Some(msg) => {
                    self.heard = true;
                    self.keep(plan, msg, &mut got, &mut passed);
                }
                None => break,
            }
        }
        while got.iter().filter(|m| is_notification(m)).count() < plan.notifications {
            match client.recv(STRAGGLERS).await {
                Some(msg) => self.keep(plan, msg, &mut got, &mut passed),
                None => break,
            }
        }
        // A notification that expects nothing: anything it causes shows within a quiet period.
        if request_id(&step.sent).is_none() && step.received.is_empty() {
            while let Some(msg) = client.recv(QUIET).await {
                self.keep(plan, msg, &mut got, &mut passed);
            }
        }
        self.passed = passed;
        let pairing = matching::pair(&expected, &got, &mut self.bindings);
        self.observed.push(Observed { expected, pairing });
        Ok(())
    }

    /// Keeps what the step compares, normalized, in `got`; a notification it does not compare in
    /// `passed`, for the next step.
    fn keep(&self, plan: &Plan, msg: Value, got: &mut Vec<Value>, passed: &mut Vec<Value>) {
        let compared = !is_notification(&msg)
            || self.every_notification
            || msg["method"].as_str().is_some_and(|method| plan.methods.iter().any(|m| m == method));
        let msg = self.placeholders.normalize(&msg);
        if compared { got.push(msg) } else { passed.push(msg) }
    }

    /// What the replay found, once every step has run.
    pub fn finish(self) -> Verdict {
        Verdict { steps: self.steps, observed: self.observed, bindings: self.bindings }
    }
}

fn is_notification(msg: &Value) -> bool {
    msg.get("method").is_some() && msg.get("id").is_none()
}

/// Whether the session asks for every notification, and the methods it asks for.
fn asked_notifications(file: &SessionFile) -> (bool, Vec<String>) {
    let mut methods = Vec::new();
    for (_, line) in &file.lines {
        if let Line::Text(text) = line
            && let Some(rest) = text.trim().strip_prefix(NOTIFICATIONS_DIRECTIVE)
        {
            methods.extend(rest.split_whitespace().map(str::to_owned));
        }
    }
    (methods.iter().any(|m| m == "*"), methods)
}
