//! A model's live data: the written document, the derived values, the meta values and what the
//! effects remember. Expressions read `doc`, the written document with derived values in place.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::path::Path;

/// What an effect remembers between cycles, to emit once per trigger rather than on every write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EffectMemory {
    pub last_key: Option<Value>,
    pub triggered: bool,
}

#[derive(Debug, Clone, Default)]
pub struct State {
    /// What callers and defaults wrote.
    pub base: Value,
    /// `base` with every derived value written in: what expressions read.
    pub doc: Value,
    /// Derived values by concrete address, in the order first computed.
    pub derived: IndexMap<Path, Value>,
    /// Meta values by concrete address, then property.
    pub meta: IndexMap<Path, Map<String, Value>>,
    pub effects: HashMap<String, EffectMemory>,
}

impl State {
    pub fn new(base: Value) -> State {
        State { doc: base.clone(), base, ..State::default() }
    }

    /// Writes a caller's value into the document.
    pub fn write(&mut self, path: &Path, value: Value) -> Result<(), String> {
        path.set(&mut self.base, value.clone()).map_err(|e| e.0)?;
        path.set(&mut self.doc, value).map_err(|e| e.0)
    }

    /// Stores a derived value.
    pub fn derive(&mut self, path: &Path, value: Value) -> Result<(), String> {
        path.set(&mut self.doc, value.clone()).map_err(|e| e.0)?;
        self.derived.insert(path.clone(), value);
        Ok(())
    }

    /// Forgets the derived values of a `[*]` derivation, before it is computed again.
    pub fn forget_derived(&mut self, pattern: &Path) {
        let gone: Vec<Path> = self.derived.keys().filter(|p| pattern.matches(p)).cloned().collect();
        for p in gone {
            self.derived.shift_remove(&p);
            // A value under an element that still exists in the written document goes back to it.
            match p.get(&self.base).cloned() {
                Some(v) => {
                    let _ = p.set(&mut self.doc, v);
                }
                None => {
                    p.remove(&mut self.doc);
                }
            }
        }
    }

    pub fn set_meta(&mut self, path: &Path, property: &str, value: Option<Value>) {
        match value {
            Some(v) => {
                self.meta.entry(path.clone()).or_default().insert(property.to_owned(), v);
            }
            None => {
                if let Some(m) = self.meta.get_mut(path) {
                    m.shift_remove(property);
                }
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
