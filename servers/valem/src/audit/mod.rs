//! The audit trail: one record per committed cycle that wrote something, hash-chained so that
//! an altered, reordered or deleted record is found. The records live behind `AuditStore`; the
//! chain (how a record is sealed and how a trail is verified) is the same for every store.

mod chain;
mod memory;

pub use chain::{GENESIS, Verification, seal, verify, verify_from};
pub use memory::MemoryAuditStore;

use serde_json::{Map, Value, json};
use tooltable::Principal;

use crate::engine::trace::CycleOutcome;

/// Why the trail could not be read or written.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditError(pub String);

/// Where the records of every model's trail are kept. A record is a JSON object as `get_audit`
/// returns it; the store gives it its `sequence`, `prevHash` and `hash` when it appends it.
pub trait AuditStore: Send + Sync {
    /// Seals `record` onto the end of the trail of `model` (see `chain::seal`).
    fn append(&self, model: &str, record: Map<String, Value>) -> Result<(), AuditError>;
    /// The trail of `model`, oldest record first.
    fn trail(&self, model: &str) -> Result<Trail, AuditError>;
    /// Forgets the trail of `model`.
    fn remove(&self, model: &str) -> Result<(), AuditError>;
}

/// A model's trail as a store keeps it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trail {
    /// The hash the first record follows: `GENESIS`, or the hash of the newest record a bounded
    /// store has let go.
    pub anchor: String,
    /// Oldest first; what cannot be read is given as it is stored (a string), so that `verify`
    /// names it.
    pub records: Vec<Value>,
}

impl Trail {
    pub fn verify(&self) -> Verification {
        verify(&self.records, &self.anchor)
    }
}

/// A record of one committed cycle, before the store seals it: the written mutations, the
/// derived addresses, the ids of the flagged constraints and of the dispatched effects, every
/// trace, and the `source`'s actor when the request named its caller (`{subject, clientId}` of
/// its principal; its scopes and claims are not kept), sealed into the chain with the rest.
/// Top-level nulls are left out.
pub fn record(
    model: &str,
    version: &str,
    source: &str,
    actor: Option<&Principal>,
    outcome: &CycleOutcome,
    mutations: Map<String, Value>,
) -> Map<String, Value> {
    let flagged: Vec<&str> = outcome.flagged.iter().map(|f| f.constraint_id.as_str()).collect();
    let effects: Vec<&Value> = outcome.dispatched_effects.iter().filter_map(|e| e.get("effectId")).collect();
    let record = json!({
        "modelId": model,
        "timestamp": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "modelVersion": version,
        "source": source,
        "actor": actor.map(actor_of),
        "mutations": mutations,
        "derivedUpdated": outcome.derived_updated,
        "flaggedConstraints": flagged,
        "dispatchedEffects": effects,
        "traces": outcome.traces,
    });
    match record {
        Value::Object(m) => m.into_iter().filter(|(_, v)| !v.is_null()).collect(),
        _ => Map::new(),
    }
}

/// Who a record's source was: the principal's subject, and its client when it names one.
fn actor_of(principal: &Principal) -> Value {
    let mut actor = Map::from_iter([("subject".to_owned(), Value::from(principal.subject.as_str()))]);
    if let Some(client_id) = &principal.client_id {
        actor.insert("clientId".to_owned(), Value::from(client_id.as_str()));
    }
    Value::Object(actor)
}
