//! Flows: YAML files of steps, each calling a capability with inputs taken from the state or from
//! earlier steps' data. Parsed by one parser, whose errors name a line and column, for the
//! published flows, for validation and for drafts alike.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::capabilities::{Answer, Capability};
pub use crate::protocol::Transport;

/// The largest flow text parsed.
pub const MAX_FLOW_BYTES: usize = 1024 * 1024;
/// The most steps a flow may have.
pub const MAX_STEPS: usize = 100;

/// A flow as written.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub steps: Vec<Step>,
    /// What the outcome is when every step has run: a literal or a `$` reference.
    #[serde(default)]
    pub outcome: Option<Value>,
    /// Recorded answers by step id, which the `replay` transport gives instead of calling.
    #[serde(default)]
    pub recorded: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub id: String,
    /// The capability it calls.
    pub call: String,
    /// Its arguments; a string `$state.a.b` or `$step.field` is read from the state or a step's data.
    #[serde(default)]
    pub input: Map<String, Value>,
    /// The step runs only when each reference equals its value.
    #[serde(default, rename = "if")]
    pub only_if: Map<String, Value>,
    /// The outcome when the capability abstains (default `abstained`).
    #[serde(default)]
    pub on_abstain: Option<String>,
    /// The outcome when the capability errs (default `failed`).
    #[serde(default)]
    pub on_error: Option<String>,
}

/// Why a flow's text is not a valid flow.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Invalid {
    pub error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Invalid {
    fn new(error: impl Into<String>) -> Self {
        Invalid { error: error.into(), line: None, column: None }
    }

    /// One line for a list: `line 3, column 5: ...`.
    pub fn reason(&self) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!("line {l}, column {c}: {}", self.error),
            _ => self.error.clone(),
        }
    }
}

/// What a run ends with.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Run {
    pub outcome: String,
    pub data: Map<String, Value>,
    pub path: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<Map<String, Value>>,
}

/// Parses and checks a flow against the loaded capabilities.
pub fn parse(text: &str, capabilities: &BTreeMap<String, Capability>) -> Result<Flow, Invalid> {
    if text.len() > MAX_FLOW_BYTES {
        return Err(Invalid::new(format!("the flow is {} bytes; the limit is {MAX_FLOW_BYTES}", text.len())));
    }
    let flow: Flow = yaml_serde::from_str(text).map_err(|e| {
        let location = e.location();
        // The message says "at line L column C" itself; the location gives them as fields.
        let error = match &location {
            Some(l) => e.to_string().replace(&format!(" at line {} column {}", l.line(), l.column()), ""),
            None => e.to_string(),
        };
        Invalid { error, line: location.as_ref().map(|l| l.line()), column: location.as_ref().map(|l| l.column()) }
    })?;
    check(&flow, capabilities)?;
    Ok(flow)
}

fn check(flow: &Flow, capabilities: &BTreeMap<String, Capability>) -> Result<(), Invalid> {
    let name_ok = (1..=64).contains(&flow.name.len())
        && flow.name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
    if !name_ok {
        return Err(Invalid::new(format!("name {:?} is not 1 to 64 letters, digits, `_` or `-`", flow.name)));
    }
    if flow.steps.is_empty() || flow.steps.len() > MAX_STEPS {
        return Err(Invalid::new(format!("a flow has 1 to {MAX_STEPS} steps; this one has {}", flow.steps.len())));
    }
    let mut earlier: HashSet<&str> = HashSet::new();
    for (i, step) in flow.steps.iter().enumerate() {
        let at = |why: String| Invalid::new(format!("steps[{i}] ({}): {why}", step.id));
        if step.id.is_empty() || step.id == "state" || step.id.contains('.') {
            return Err(at("a step id is a non-empty name without `.`, other than `state`".into()));
        }
        if !capabilities.contains_key(&step.call) {
            return Err(at(format!("calls {:?}, which is not loaded", step.call)));
        }
        let inputs = step.input.values().filter_map(reference);
        for r in inputs.chain(step.only_if.keys().filter_map(|k| k.strip_prefix('$'))) {
            let head = r.split('.').next().unwrap_or_default();
            if head != "state" && !earlier.contains(head) {
                return Err(at(format!("`${r}` names no earlier step (nor `state`)")));
            }
        }
        if !earlier.insert(&step.id) {
            return Err(at("this id is used by an earlier step".into()));
        }
    }
    if let Some(r) = flow.outcome.as_ref().and_then(reference) {
        let head = r.split('.').next().unwrap_or_default();
        if head != "state" && !earlier.contains(head) {
            return Err(Invalid::new(format!("outcome: `${r}` names no step (nor `state`)")));
        }
    }
    Ok(())
}

/// The path of a `$` reference, without the `$`.
fn reference(v: &Value) -> Option<&str> {
    v.as_str().and_then(|s| s.strip_prefix('$'))
}

/// Runs a parsed flow on a state.
pub async fn run(flow: &Flow, state: &Value, capabilities: &BTreeMap<String, Capability>, transport: Transport) -> Run {
    let mut data = Map::new();
    let mut path = Vec::new();
    let mut recorded = (transport == Transport::Record).then(Map::new);
    let scope = |data: &Map<String, Value>| {
        let mut scope = data.clone();
        scope.insert("state".into(), state.clone());
        Value::Object(scope)
    };
    for step in &flow.steps {
        let here = scope(&data);
        if !step.only_if.iter().all(|(k, expected)| resolve(&Value::String(k.clone()), &here) == *expected) {
            continue;
        }
        path.push(step.id.clone());
        let input: Map<String, Value> = step.input.iter().map(|(k, v)| (k.clone(), resolve(v, &here))).collect();
        let answer = match transport {
            Transport::Replay => replayed(flow, &step.id),
            Transport::Live | Transport::Record => match capabilities.get(&step.call) {
                Some(c) => c.call(&Value::Object(input)).await,
                None => Answer::Error { error: format!("{} is no longer loaded", step.call) },
            },
        };
        if let Some(r) = recorded.as_mut() {
            r.insert(step.id.clone(), answer.to_json());
        }
        let end = match answer {
            Answer::Ok { data: d } => {
                data.insert(step.id.clone(), d);
                None
            }
            Answer::Abstain { reason } => {
                data.insert(step.id.clone(), json!({ "abstained": reason }));
                Some(step.on_abstain.clone().unwrap_or_else(|| "abstained".into()))
            }
            Answer::Error { error } => {
                data.insert(step.id.clone(), json!({ "error": error }));
                Some(step.on_error.clone().unwrap_or_else(|| "failed".into()))
            }
        };
        if let Some(outcome) = end {
            return Run { outcome, data, path, recorded };
        }
    }
    let outcome = match &flow.outcome {
        None => "done".to_owned(),
        Some(v) => match resolve(v, &scope(&data)) {
            Value::String(s) => s,
            other => other.to_string(),
        },
    };
    Run { outcome, data, path, recorded }
}

fn replayed(flow: &Flow, step: &str) -> Answer {
    match flow.recorded.get(step) {
        None => Answer::Error { error: format!("no recorded answer for step {step:?}") },
        Some(v) => serde_json::from_value::<RecordedAnswer>(v.clone()).map(Answer::from).unwrap_or_else(|e| {
            Answer::Error { error: format!("the recorded answer for step {step:?} is not an answer: {e}") }
        }),
    }
}

#[derive(Deserialize)]
#[serde(tag = "status", rename_all = "lowercase", deny_unknown_fields)]
enum RecordedAnswer {
    Ok {
        #[serde(default)]
        data: Value,
    },
    Abstain {
        reason: String,
    },
    Error {
        error: String,
    },
}

impl From<RecordedAnswer> for Answer {
    fn from(r: RecordedAnswer) -> Answer {
        match r {
            RecordedAnswer::Ok { data } => Answer::Ok { data },
            RecordedAnswer::Abstain { reason } => Answer::Abstain { reason },
            RecordedAnswer::Error { error } => Answer::Error { error },
        }
    }
}

/// A value with its `$` references read from the scope (missing ones are null).
fn resolve(v: &Value, scope: &Value) -> Value {
    match reference(v) {
        None => v.clone(),
        Some(path) => path.split('.').try_fold(scope, |at, key| at.get(key)).cloned().unwrap_or(Value::Null),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hub::capabilities::{Capability, CapabilityFile};

    fn capabilities() -> BTreeMap<String, Capability> {
        let file: CapabilityFile = yaml_serde::from_str("id: tool.risk\nkind: risk\n").unwrap();
        let risk = Capability::from_file(file).unwrap();
        BTreeMap::from([(risk.id.clone(), risk)])
    }

    const GUARD: &str = "name: guard\nsteps:\n  - id: classify\n    call: tool.risk\n    input: { command: $state.command }\noutcome: $classify.decision\n";

    #[test]
    fn a_yaml_error_names_its_line_and_column() {
        let e = parse("name: x\nsteps:\n  - id: [\n", &capabilities()).unwrap_err();
        assert_eq!((e.line, e.column), (Some(3), Some(9)), "{e:?}");
        assert_eq!(e.error, "steps[0].id: invalid type: sequence, expected a string");
        let e = parse("name: x\nstep: []\n", &capabilities()).unwrap_err();
        assert!(e.error.contains("unknown field `step`"), "{e:?}");
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn a_flow_must_call_loaded_capabilities_and_refer_to_earlier_steps() {
        let e = parse("name: x\nsteps:\n  - { id: a, call: nope }\n", &capabilities()).unwrap_err();
        assert_eq!(e.error, "steps[0] (a): calls \"nope\", which is not loaded");
        let e = parse("name: x\nsteps:\n  - { id: a, call: tool.risk, input: { command: $b.x } }\n", &capabilities())
            .unwrap_err();
        assert!(e.error.contains("`$b.x` names no earlier step"), "{e:?}");
        let e = parse("name: 'a b'\nsteps: []\n", &capabilities()).unwrap_err();
        assert!(e.error.starts_with("name \"a b\""), "{e:?}");
    }

    #[tokio::test]
    async fn a_live_run_follows_the_steps() {
        let flow = parse(GUARD, &capabilities()).unwrap();
        let run = run(&flow, &json!({ "command": "rm -rf /" }), &capabilities(), Transport::Live).await;
        assert_eq!(run.outcome, "deny");
        assert_eq!(run.path, ["classify"]);
        assert_eq!(run.data["classify"]["decision"], "deny");
        assert!(run.recorded.is_none());
    }

    #[tokio::test]
    async fn replay_uses_the_recordings_and_record_returns_them() {
        let text = format!("{GUARD}recorded:\n  classify: {{ status: ok, data: {{ decision: ask }} }}\n");
        let flow = parse(&text, &capabilities()).unwrap();
        let replay = run(&flow, &json!({ "command": "ls" }), &capabilities(), Transport::Replay).await;
        assert_eq!(replay.outcome, "ask");
        let record = run(&flow, &json!({ "command": "ls" }), &capabilities(), Transport::Record).await;
        assert_eq!(record.outcome, "allow");
        assert_eq!(record.recorded.unwrap()["classify"]["status"], "ok");
        let bare = parse(GUARD, &capabilities()).unwrap();
        let missing = run(&bare, &json!({}), &capabilities(), Transport::Replay).await;
        assert_eq!(missing.outcome, "failed");
        assert_eq!(missing.data["classify"]["error"], "no recorded answer for step \"classify\"");
    }

    #[tokio::test]
    async fn a_guard_skips_a_step_and_an_abstention_ends_the_flow() {
        let text = "name: g\nsteps:\n  - { id: a, call: tool.risk, input: { command: $state.c }, on_abstain: nothing }\n  - { id: b, call: tool.risk, input: { command: ls }, if: { $a.decision: deny } }\n";
        let flow = parse(text, &capabilities()).unwrap();
        let ran = run(&flow, &json!({ "c": "ls" }), &capabilities(), Transport::Live).await;
        assert_eq!((ran.outcome.as_str(), ran.path.len()), ("done", 1));
        let ran = run(&flow, &json!({ "c": " " }), &capabilities(), Transport::Live).await;
        assert_eq!(ran.outcome, "nothing");
    }
}
