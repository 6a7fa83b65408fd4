//! The hub's capabilities: one YAML file each under `capabilities/`, naming its id and one of the
//! built-in kinds, and the typed answer every call gives (`ok`, `abstain` or `error`).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::risk::{self, RiskRules, Unclassified};

/// The longest wait `agent.wakeup` accepts.
pub const MAX_WAKEUP_MS: u64 = 60_000;

/// A capability file as written.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CapabilityFile {
    pub id: String,
    #[serde(default)]
    pub description: Option<String>,
    pub kind: KindName,
    /// `risk` only: programs added to the built-in lists.
    #[serde(default)]
    pub rules: Option<RiskRules>,
    /// `wakeup` only: the agents it may wake (any when empty).
    #[serde(default)]
    pub agents: Option<Vec<String>>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum KindName {
    Risk,
    Wakeup,
    Echo,
}

/// What a capability does, with its options.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Classifies a shell command line.
    Risk { rules: RiskRules },
    /// Wakes an agent after a delay.
    Wakeup { agents: Vec<String> },
    /// Answers its arguments back.
    Echo,
}

impl CapabilityFile {
    /// The kind with its options; an option of another kind is an error.
    fn kind(self) -> Result<(String, Option<String>, Kind), String> {
        let kind = match (self.kind, self.rules, self.agents) {
            (KindName::Risk, rules, None) => Kind::Risk { rules: rules.unwrap_or_default() },
            (KindName::Wakeup, None, agents) => Kind::Wakeup { agents: agents.unwrap_or_default() },
            (KindName::Echo, None, None) => Kind::Echo,
            (_, Some(_), _) => return Err("`rules` applies to kind `risk` only".into()),
            (_, _, Some(_)) => return Err("`agents` applies to kind `wakeup` only".into()),
        };
        Ok((self.id, self.description, kind))
    }
}

/// A loaded capability, as the hub lists it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Capability {
    pub id: String,
    pub description: String,
    pub input_schema: Value,
    #[serde(skip)]
    pub kind: Kind,
}

/// The answer to a capability call.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Answer {
    Ok { data: Value },
    Abstain { reason: String },
    Error { error: String },
}

impl Answer {
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|e| json!({ "status": "error", "error": e.to_string() }))
    }
}

impl Capability {
    pub fn from_file(file: CapabilityFile) -> Result<Capability, String> {
        let (id, description, kind) = file.kind()?;
        let (default_description, input_schema) = match &kind {
            Kind::Risk { .. } => (
                "Classifies a shell command line as allow, ask or deny, with the reason for each finding.",
                json!({
                    "type": "object",
                    "properties": { "command": { "type": "string", "description": "The command line, as a shell would read it." } },
                    "required": ["command"],
                    "additionalProperties": false
                }),
            ),
            Kind::Wakeup { .. } => (
                "Wakes an agent after a delay and says when it woke.",
                json!({
                    "type": "object",
                    "properties": {
                        "agent": { "type": "string", "description": "The agent to wake." },
                        "after_ms": { "type": "integer", "minimum": 0, "maximum": MAX_WAKEUP_MS, "default": 0, "description": "How long to wait first, in milliseconds." },
                        "reason": { "type": "string", "description": "Why it is woken." }
                    },
                    "required": ["agent"],
                    "additionalProperties": false
                }),
            ),
            Kind::Echo => (
                "Answers its arguments back.",
                json!({ "type": "object", "properties": { "text": { "type": "string" } }, "additionalProperties": false }),
            ),
        };
        let description = description.unwrap_or_else(|| default_description.to_owned());
        Ok(Capability { id, description, input_schema, kind })
    }

    /// Runs the capability. Arguments are checked here too: the hub is called by more than the
    /// bridge.
    pub async fn call(&self, args: &Value) -> Answer {
        match &self.kind {
            Kind::Risk { rules } => {
                let Some(command) = args.get("command").and_then(Value::as_str) else {
                    return Answer::Error { error: "`command` must be a string".into() };
                };
                match risk::classify(command, rules) {
                    Ok(verdict) => Answer::Ok { data: json!(verdict) },
                    Err(Unclassified::Empty) => {
                        Answer::Abstain { reason: "the command line is empty: there is nothing to classify".into() }
                    }
                    Err(Unclassified::Malformed(why)) => {
                        Answer::Error { error: format!("the command line does not parse: {why}") }
                    }
                }
            }
            Kind::Wakeup { agents } => wakeup(agents, args).await,
            Kind::Echo => Answer::Ok { data: args.clone() },
        }
    }
}

async fn wakeup(agents: &[String], args: &Value) -> Answer {
    let Some(agent) = args.get("agent").and_then(Value::as_str) else {
        return Answer::Error { error: "`agent` must be a string".into() };
    };
    let after_ms = match args.get("after_ms") {
        None => 0,
        Some(v) => match v.as_u64() {
            Some(ms) if ms <= MAX_WAKEUP_MS => ms,
            _ => return Answer::Error { error: format!("`after_ms` must be an integer from 0 to {MAX_WAKEUP_MS}") },
        },
    };
    if !agents.is_empty() && !agents.iter().any(|a| a == agent) {
        return Answer::Abstain { reason: format!("no agent named {agent:?} is known to this hub") };
    }
    tokio::time::sleep(Duration::from_millis(after_ms)).await;
    let mut data = json!({ "agent": agent, "woke": true, "after_ms": after_ms });
    if let Some(reason) = args.get("reason") {
        data["reason"] = reason.clone();
    }
    Answer::Ok { data }
}
