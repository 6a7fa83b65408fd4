//! The trail of each model kept in this process, bounded per model: past `max_records` records
//! or `max_bytes` bytes the oldest go, and the trail then starts from the hash of the last one
//! let go, so that what is kept still verifies.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

use serde_json::{Map, Value};

use super::{AuditError, AuditStore, GENESIS, Trail, seal};
use crate::engine::limits::size_up_to;

pub struct MemoryAuditStore {
    trails: Mutex<HashMap<String, Kept>>,
    max_records: usize,
    max_bytes: usize,
}

struct Kept {
    anchor: String,
    records: VecDeque<(Value, usize)>,
    bytes: usize,
    next_sequence: u64,
    last_hash: String,
}

impl Default for Kept {
    fn default() -> Self {
        Kept { anchor: GENESIS.into(), records: VecDeque::new(), bytes: 0, next_sequence: 0, last_hash: GENESIS.into() }
    }
}

impl MemoryAuditStore {
    pub fn new(max_records: usize, max_bytes: usize) -> MemoryAuditStore {
        MemoryAuditStore { trails: Mutex::default(), max_records: max_records.max(1), max_bytes }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Kept>> {
        self.trails.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A test hook: changes the stored record at `position` (oldest first) of `model`'s trail
    /// in place, as an attacker with access to the store would. `false` when there is none.
    pub fn tamper(&self, model: &str, position: usize, change: impl FnOnce(&mut Value)) -> bool {
        let mut trails = self.lock();
        match trails.get_mut(model).and_then(|k| k.records.get_mut(position)) {
            Some((record, _)) => {
                change(record);
                true
            }
            None => false,
        }
    }
}

impl AuditStore for MemoryAuditStore {
    fn append(&self, model: &str, record: Map<String, Value>) -> Result<(), AuditError> {
        let mut trails = self.lock();
        let kept = trails.entry(model.to_owned()).or_default();
        let sealed = Value::Object(seal(record, kept.next_sequence, &kept.last_hash));
        let bytes = size_up_to(&sealed, self.max_bytes.saturating_add(1));
        kept.last_hash = sealed["hash"].as_str().unwrap_or_default().to_owned();
        kept.next_sequence += 1;
        kept.bytes += bytes;
        kept.records.push_back((sealed, bytes));
        // The newest record always stays.
        while kept.records.len() > 1 && (kept.records.len() > self.max_records || kept.bytes > self.max_bytes) {
            let Some((gone, bytes)) = kept.records.pop_front() else { break };
            kept.bytes -= bytes;
            kept.anchor = gone.get("hash").and_then(Value::as_str).unwrap_or_default().to_owned();
        }
        Ok(())
    }

    fn trail(&self, model: &str) -> Result<Trail, AuditError> {
        let trails = self.lock();
        Ok(match trails.get(model) {
            Some(kept) => {
                Trail { anchor: kept.anchor.clone(), records: kept.records.iter().map(|(r, _)| r.clone()).collect() }
            }
            None => Trail { anchor: GENESIS.into(), records: Vec::new() },
        })
    }

    fn remove(&self, model: &str) -> Result<(), AuditError> {
        self.lock().remove(model);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn record(n: u64) -> Map<String, Value> {
        let Value::Object(m) = json!({ "source": "client", "mutations": { "$.a": n } }) else { unreachable!() };
        m
    }

    #[test]
    fn a_bounded_trail_lets_the_oldest_go_and_still_verifies() {
        let store = MemoryAuditStore::new(3, usize::MAX);
        for n in 0..5 {
            store.append("m", record(n)).unwrap();
        }
        let trail = store.trail("m").unwrap();
        let sequences: Vec<u64> = trail.records.iter().map(|r| r["sequence"].as_u64().unwrap()).collect();
        assert_eq!(sequences, [2, 3, 4]);
        assert_ne!(trail.anchor, GENESIS);
        assert!(trail.verify().valid);
        store.remove("m").unwrap();
        assert_eq!(store.trail("m").unwrap().records.len(), 0);
    }

    #[test]
    fn tampering_is_found() {
        let store = MemoryAuditStore::new(10, usize::MAX);
        for n in 0..3 {
            store.append("m", record(n)).unwrap();
        }
        assert!(store.tamper("m", 1, |r| r["source"] = json!("forged")));
        let v = store.trail("m").unwrap().verify();
        assert_eq!((v.valid, v.first_broken_sequence), (false, Some(1)));
        assert!(!store.tamper("m", 9, |_| {}));
    }
}
