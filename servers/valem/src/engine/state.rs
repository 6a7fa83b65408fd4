//! A model's live data: the written document, the derived values and the meta values. Expressions read `doc`, the written document with derived values in place.
//! Every change is recorded in the journal, so that a cycle can be undone (see `journal.rs`).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::journal::{Change, Journal, Slot};
use super::path::Path;

/// Stored as it is (see `engine/stored.rs`), but for the journal, which a committed state has
/// always handed to its history.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    /// What callers and defaults wrote.
    pub base: Value,
    /// `base` with every derived value written in: what expressions read.
    pub doc: Value,
    /// Derived values by concrete address, in the order first computed.
    pub derived: IndexMap<Path, Value>,
    /// Meta values by concrete address, then property.
    pub meta: IndexMap<Path, Map<String, Value>>,
    /// The changes since the journal was last taken.
    #[serde(skip)]
    journal: Journal,
}

impl State {
    pub fn new(base: Value) -> State {
        State { doc: base.clone(), base, ..State::default() }
    }

    /// Writes a caller's value into the document.
    pub fn write(&mut self, path: &Path, value: Value) -> Result<(), String> {
        self.journal.push(Change::Base(Slot::before_set(&self.base, path)));
        path.set(&mut self.base, value.clone()).map_err(|e| e.0)?;
        self.set_doc(path, value)
    }

    fn set_doc(&mut self, path: &Path, value: Value) -> Result<(), String> {
        self.journal.push(Change::Doc(Slot::before_set(&self.doc, path)));
        path.set(&mut self.doc, value).map_err(|e| e.0)
    }

    /// Stores a derived value.
    pub fn derive(&mut self, path: &Path, value: Value) -> Result<(), String> {
        self.set_doc(path, value.clone())?;
        let old = self.derived.get_full(path).map(|(at, _, v)| (at, v.clone()));
        self.journal.push(Change::Derived(path.clone(), old));
        self.derived.insert(path.clone(), value);
        Ok(())
    }

    /// Forgets the derived values of a `[*]` derivation, before it is computed again.
    pub fn forget_derived(&mut self, pattern: &Path) {
        let gone: Vec<Path> = self.derived.keys().filter(|p| pattern.matches(p)).cloned().collect();
        for p in gone {
            if let Some((at, _, value)) = self.derived.shift_remove_full(&p) {
                self.journal.push(Change::Derived(p.clone(), Some((at, value))));
            }
            // A value under an element that still exists in the written document goes back to it.
            match p.get(&self.base).cloned() {
                Some(v) => {
                    let _ = self.set_doc(&p, v);
                }
                None => self.remove_doc(&p),
            }
        }
    }

    /// Removes a value from `doc`; the container it was in is what the journal keeps, so that
    /// its key order comes back too.
    fn remove_doc(&mut self, path: &Path) {
        let Some(parent) = path.parent() else { return };
        if let Some(container) = parent.get(&self.doc) {
            self.journal.push(Change::Doc(Slot::Was(parent, container.clone())));
            path.remove(&mut self.doc);
        }
    }

    pub fn set_meta(&mut self, path: &Path, property: &str, value: Option<Value>) {
        let old = self.meta.get_full(path).map(|(at, _, m)| (at, m.clone()));
        match value {
            Some(v) => {
                self.journal.push(Change::Meta(path.clone(), old));
                self.meta.entry(path.clone()).or_default().insert(property.to_owned(), v);
            }
            None => {
                if let Some(m) = self.meta.get_mut(path) {
                    self.journal.push(Change::Meta(path.clone(), old));
                    m.shift_remove(property);
                }
            }
        }
    }

    /// The changes recorded since the last call, oldest first.
    pub fn take_journal(&mut self) -> Journal {
        std::mem::take(&mut self.journal)
    }

    /// Puts back every change of `journal`, newest first.
    pub fn undo(&mut self, journal: Journal) {
        for change in journal.0.into_iter().rev() {
            match change {
                Change::Base(slot) => slot.undo(&mut self.base),
                Change::Doc(slot) => slot.undo(&mut self.doc),
                Change::Derived(path, None) => {
                    self.derived.shift_remove(&path);
                }
                Change::Derived(path, Some((at, value))) => put_back(&mut self.derived, at, path, value),
                Change::Meta(path, None) => {
                    self.meta.shift_remove(&path);
                }
                Change::Meta(path, Some((at, values))) => put_back(&mut self.meta, at, path, values),
            }
        }
    }

    /// The merged document as callers see it: the written document in its own key order, each
    /// derived value laid in at its address.
    pub fn merged(&self) -> Value {
        let mut out = self.base.clone();
        for (path, value) in &self.derived {
            let _ = path.set(&mut out, value.clone());
        }
        out
    }
}

/// Puts an entry back at its former place (the map is as the change left it, so the place is
/// in range; it is clamped all the same).
fn put_back<V>(map: &mut IndexMap<Path, V>, at: usize, key: Path, value: V) {
    let last = if map.contains_key(&key) { map.len().saturating_sub(1) } else { map.len() };
    map.shift_insert(at.min(last), key, value);
}
