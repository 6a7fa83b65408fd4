//! What a replay found: whether each step matched, a diff of those that did not, and the session
//! as observed (the recording with each step's answers replaced by what came back), which is what
//! a pending `.session.new` holds and what `GOLDEN_BLESS=1` writes.
//!
//! ```
//! use std::path::Path;
//!
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
//! let changed = r#"read request; echo '{"jsonrpc":"2.0","id":1,"result":{"late":true}}'"#;
//! let mut client = Client::Stdio(StdioClient::spawn("sh", &["-c", changed])?);
//! let verdict = Replayer::new(&session, &placeholders).run(&mut client).await?;
//! assert!(!verdict.matched());
//! assert!(verdict.differences(Path::new("ping.session")).contains("late"));
//! assert!(verdict.observed_session(&session).contains("\"late\": true"), "what a pending file holds");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::matching::{Bindings, Pairing};
use crate::session::{Line, RECEIVED, SessionFile, Step, render};
use crate::tokens::Tokens;

/// One step as replayed.
#[derive(Debug, Clone)]
pub struct Observed {
    /// What the session records for it.
    pub expected: Vec<Value>,
    /// What came back, paired with it.
    pub pairing: Pairing,
}

/// Every step of one replay.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub(super) steps: Vec<Step>,
    pub(super) observed: Vec<Observed>,
    pub(super) bindings: Bindings,
}

impl Verdict {
    /// Whether every step got what the session records.
    pub fn matched(&self) -> bool {
        self.observed.len() == self.steps.len() && self.observed.iter().all(|o| o.pairing.matched)
    }

    /// Whether the session records no answer at all (a script of `→` lines not yet recorded).
    pub fn unrecorded(&self) -> bool {
        self.steps.iter().all(|s| s.received.is_empty())
    }

    /// Per step, what the observed session records: a message that matched as the session has
    /// it (placeholders and all), any other with its opaque values as placeholders.
    pub fn answers(&self) -> Vec<Vec<Value>> {
        let mut tokens = Tokens::from_bindings(&self.bindings);
        self.observed
            .iter()
            .map(|o| {
                o.pairing
                    .aligned
                    .iter()
                    .map(|(actual, slot)| match slot {
                        Some(e) => o.expected[*e].clone(),
                        None => tokens.received(actual),
                    })
                    .collect()
            })
            .collect()
    }

    /// A unified diff per step whose answers differ, headed by the file and line.
    pub fn differences(&self, path: &Path) -> String {
        let mut report = String::new();
        for ((step, observed), answers) in self.steps.iter().zip(&self.observed).zip(self.answers()) {
            if observed.pairing.matched {
                continue;
            }
            let line = step.received.first().map_or(step.line, |(n, _)| *n);
            let (old, new) = (shown(&observed.expected), shown(&answers));
            let diff = similar::TextDiff::from_lines(&old, &new);
            let _ = writeln!(
                report,
                "{}:{line}: the answer to line {} differs\n{}",
                path.display(),
                step.line,
                diff.unified_diff().context_radius(3).header("recorded", "received")
            );
        }
        report
    }

    /// The session `file` with each step's answers replaced by what came back; comments stay.
    pub fn observed_session(&self, file: &SessionFile) -> String {
        observed_session(file, &self.answers())
    }
}

/// `file` with the answers of step `i` replaced by `answers[i]` (none for a step not run).
pub fn observed_session(file: &SessionFile, answers: &[Vec<Value>]) -> String {
    let mut lines = Vec::new();
    let mut step = 0;
    for (_, line) in &file.lines {
        match line {
            Line::Sent(v) => {
                lines.push(Line::Sent(v.clone()));
                lines.extend(answers.get(step).into_iter().flatten().cloned().map(Line::Received));
                step += 1;
            }
            Line::Received(_) => {}
            Line::Text(t) => lines.push(Line::Text(t.clone())),
        }
    }
    SessionFile::render(&lines)
}

/// Messages as the session file writes them.
fn shown(messages: &[Value]) -> String {
    messages.iter().map(|m| format!("{RECEIVED}{}\n", render::message(m, 2))).collect()
}
