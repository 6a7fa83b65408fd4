//! The undo journal: each change a cycle makes to a model's state, recorded as what to put back.
//! A failed cycle is undone by replaying its journal in reverse; a committed cycle's journal
//! stays in the history, so an earlier state is rebuilt by undoing the newer cycles. What a
//! cycle costs to record follows what it changed, not the size of the model.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::limits::size_up_to;
use super::path::{Path, Seg};

/// What was at an address of a JSON document before a write there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Slot {
    /// This value (a write replaces it, or turns a null into a container).
    Was(Path, Value),
    /// No such key in the object at the parent: the write adds it.
    Absent(Path),
    /// The array at this address was this long: the write grows it.
    Len(Path, usize),
}

impl Slot {
    /// What to put back after `path.set(doc, ...)`, found before it runs: the first address
    /// on the way that the write creates or replaces.
    pub fn before_set(doc: &Value, path: &Path) -> Slot {
        let mut cur = doc;
        for (n, seg) in path.segs().iter().enumerate() {
            let here = || Path(path.segs()[..n].to_vec());
            match (seg, cur) {
                (_, Value::Null) => return Slot::Was(here(), Value::Null),
                (Seg::Key(k), Value::Object(m)) => match m.get(k) {
                    Some(next) => cur = next,
                    None => return Slot::Absent(here().child(seg.clone())),
                },
                (Seg::Index(i), Value::Array(a)) => match a.get(*i) {
                    Some(next) => cur = next,
                    None => return Slot::Len(here(), a.len()),
                },
                // The write fails here and changes nothing; putting this back is harmless.
                _ => return Slot::Was(here(), cur.clone()),
            }
        }
        Slot::Was(path.clone(), cur.clone())
    }

    /// Puts the address back as it was.
    pub fn undo(self, doc: &mut Value) {
        match self {
            Slot::Was(path, value) => {
                let _ = path.set(doc, value);
            }
            Slot::Absent(path) => {
                path.remove(doc);
            }
            Slot::Len(path, len) => {
                if let Some(Value::Array(a)) = path.get_mut(doc) {
                    a.truncate(len);
                }
            }
        }
    }
}

/// One change to a model's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Change {
    Base(Slot),
    Doc(Slot),
    /// A derived value's former place and value in the ordered map, or `None` when it was new.
    Derived(Path, Option<(usize, Value)>),
    /// A field's former meta values and their place, or `None` when it had none.
    Meta(Path, Option<(usize, Map<String, Value>)>),
}

/// The changes of one cycle, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Journal(pub Vec<Change>);

impl Journal {
    pub fn push(&mut self, change: Change) {
        self.0.push(change);
    }

    /// About how many bytes of JSON the journal keeps (values as compact JSON, each change at
    /// least a few bytes); past `cap` the count stops and says `cap + 1`.
    pub fn bytes(&self, cap: usize) -> usize {
        const CHANGE: usize = 16;
        let mut total = 0usize;
        for change in &self.0 {
            let left = cap.saturating_sub(total);
            total += CHANGE
                + match change {
                    Change::Base(Slot::Was(_, v)) | Change::Doc(Slot::Was(_, v)) | Change::Derived(_, Some((_, v))) => {
                        size_up_to(v, left)
                    }
                    Change::Meta(_, Some((_, m))) => m.values().map(|v| size_up_to(v, left)).sum(),
                    _ => 0,
                };
            if total > cap {
                return cap.saturating_add(1);
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn undone(doc: &Value, address: &str, value: Value) -> Value {
        let path = Path::parse(address).unwrap();
        let mut after = doc.clone();
        let slot = Slot::before_set(&after, &path);
        let _ = path.set(&mut after, value);
        assert_ne!(&after, doc, "{address} changed nothing");
        slot.undo(&mut after);
        after
    }

    #[test]
    fn a_write_is_undone_exactly() {
        let doc = json!({ "a": 1, "b": { "c": [1, 2] }, "n": null, "z": 0 });
        for (address, value) in [
            ("$.a", json!(2)),
            ("$.new", json!(1)),
            ("$.b.c[1]", json!(9)),
            ("$.b.c[4]", json!(9)),
            ("$.b.d.e", json!(1)),
            ("$.n.x", json!(1)),
        ] {
            let back = undone(&doc, address, value);
            assert_eq!(back, doc, "{address}");
            // Key order is part of the document.
            assert_eq!(back.to_string(), doc.to_string(), "{address}");
        }
    }
}
