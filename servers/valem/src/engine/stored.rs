//! A model written as a store keeps it, and rebuilt from that without evaluating anything: the
//! spec as the client wrote it (compiled again on load), the state as it is (written document,
//! merged document, derived and meta caches in their order) and the history with
//! the undo journals that `get_state` `at` replays. Traces (what `explain` serves) are of the
//! cycles this process ran and are not stored.

use std::sync::Arc;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::journal::Journal;
use super::limits::size_up_to;
use super::model::{HISTORY_CAPACITY, HistoryEntry, Model, TRACE_CAPACITY, compile};
use super::ring::Ring;
use super::state::State;
use crate::store::StoredModel;

/// The stored form's version: a store written by a newer layout is refused, not misread.
const LAYOUT: u64 = 1;

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredState {
    layout: u64,
    state: State,
    history: Vec<StoredEntry>,
    next_sequence: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredEntry {
    sequence: u64,
    /// To the nanosecond, as `get_state` `at` compares it.
    at: String,
    source: String,
    mutations: Map<String, Value>,
    undo: Journal,
    bytes: usize,
}

impl Model {
    /// The model as a store keeps it.
    pub fn to_stored(&self) -> StoredModel {
        let history = self
            .history
            .iter()
            .map(|h| StoredEntry {
                sequence: h.sequence,
                at: h.at.to_rfc3339_opts(SecondsFormat::Nanos, true),
                source: h.source.clone(),
                mutations: h.mutations.clone(),
                undo: Journal::clone(&h.undo),
                bytes: h.bytes,
            })
            .collect();
        let stored =
            StoredState { layout: LAYOUT, state: self.state.clone(), history, next_sequence: self.next_sequence };
        StoredModel {
            spec: self.compiled.spec.raw.clone(),
            // A state is plain data: to_value fails only on a non-string map key, and there is none.
            state: serde_json::to_value(stored).unwrap_or(Value::Null),
        }
    }

    /// The model a store kept, as it was committed: nothing is evaluated. `Err` says what
    /// cannot be read.
    pub fn from_stored(stored: &StoredModel) -> Result<Model, String> {
        let (compiled, _warnings) = compile(&stored.spec).map_err(|f| {
            let first: Vec<String> =
                f.errors.iter().take(3).map(|e| format!("{}: {}", e.location, e.message)).collect();
            format!("the stored spec no longer compiles ({})", first.join("; "))
        })?;
        let kept =
            StoredState::deserialize(&stored.state).map_err(|e| format!("the stored state is unreadable: {e}"))?;
        if kept.layout != LAYOUT {
            return Err(format!("the stored state has layout {}, this server reads {LAYOUT}", kept.layout));
        }
        let mut history = Ring::new(HISTORY_CAPACITY);
        let mut history_bytes = 0;
        for entry in kept.history {
            let at = DateTime::parse_from_rfc3339(&entry.at)
                .map_err(|e| format!("a stored history instant {:?} is unreadable: {e}", entry.at))?
                .with_timezone(&Utc);
            history_bytes += entry.bytes;
            history.push(HistoryEntry {
                sequence: entry.sequence,
                timestamp: at.to_rfc3339_opts(SecondsFormat::Millis, true),
                source: entry.source,
                mutations: entry.mutations,
                undo: Arc::new(entry.undo),
                bytes: entry.bytes,
                at,
            });
        }
        Ok(Model {
            compiled: Arc::new(compiled),
            bytes: size_up_to(&kept.state.doc, usize::MAX),
            state: kept.state,
            history,
            traces: Ring::new(TRACE_CAPACITY),
            next_sequence: kept.next_sequence,
            history_bytes,
        })
    }
}
