//! An RFC 6902 JSON Patch, applied to the merged state a caller reads, turned into the writes of
//! one ordinary cycle: the difference between the state before and after, at canonical
//! addresses. Derived values are never written: a value that holds derived fields is written
//! without them (the cycle computes them again), and a patch that changes a derived value itself
//! yields a write there, which the cycle refuses as it refuses one from `mutate`.

use json_patch::PatchOperation;
use serde_json::Value;

use super::compiled::Compiled;
use super::path::{Path, Seg};

/// Why a patch does not apply: the message names the operation's index.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchFailure(pub String);

/// Reads the operations of a patch, each checked on its own so a failure names its index.
pub fn parse(operations: &[Value]) -> Result<Vec<PatchOperation>, PatchFailure> {
    operations
        .iter()
        .enumerate()
        .map(|(n, op)| {
            serde_json::from_value(op.clone())
                .map_err(|e| PatchFailure(format!("operation {n} is not an RFC 6902 operation: {e}")))
        })
        .collect()
}

/// The writes that take `before` to `before` with `patch` applied, in document order.
pub fn writes(c: &Compiled, before: &Value, patch: &[PatchOperation]) -> Result<Vec<(Path, Value)>, PatchFailure> {
    let mut after = before.clone();
    // `after` is a copy, dropped when the patch fails: nothing needs undoing.
    json_patch::patch_unsafe(&mut after, patch).map_err(|e| PatchFailure(e.to_string()))?;
    let mut out = Vec::new();
    Diff { c }.diff(&Path::root(), before, &after, &mut out);
    Ok(out)
}

struct Diff<'a> {
    c: &'a Compiled,
}

impl Diff<'_> {
    fn diff(&self, at: &Path, before: &Value, after: &Value, out: &mut Vec<(Path, Value)>) {
        if before == after {
            return;
        }
        match (before, after) {
            // A member removed: the object is written without it.
            (Value::Object(b), Value::Object(a)) if b.keys().all(|k| a.contains_key(k)) => {
                for (key, value) in a {
                    let child = at.child(Seg::Key(key.clone()));
                    match b.get(key) {
                        Some(old) => self.diff(&child, old, value, out),
                        None => out.push((child.clone(), self.without_derived(&child, value))),
                    }
                }
            }
            (Value::Object(b), Value::Object(_)) => match b
                .keys()
                .map(|k| at.child(Seg::Key(k.clone())))
                .find(|p| self.is_derived(p) && p.get(after).is_none())
            {
                Some(derived) => out.push((derived, Value::Null)),
                None => out.push((at.clone(), self.without_derived(at, after))),
            },
            // Same length: each element that changed is written whole (a reorder moves whole
            // elements); one whose written fields are unchanged had a derived value patched.
            (Value::Array(b), Value::Array(a)) if b.len() == a.len() => {
                for (i, (old, new)) in b.iter().zip(a).enumerate() {
                    let child = at.child(Seg::Index(i));
                    let written = self.without_derived(&child, new);
                    if written == self.without_derived(&child, old) {
                        self.diff(&child, old, new, out);
                    } else {
                        out.push((child, written));
                    }
                }
            }
            // An insert or a removal: the array is written whole.
            _ => out.push((at.clone(), self.without_derived(at, after))),
        }
    }

    /// Whether `path` is a derived address, or lies under one.
    fn is_derived(&self, path: &Path) -> bool {
        self.c.derivations.iter().any(|d| {
            let n = d.path.segs().len();
            n <= path.segs().len() && d.path.matches(&Path(path.segs()[..n].to_vec()))
        })
    }

    /// `value`, about to be written at `at`, without the derived fields it holds.
    fn without_derived(&self, at: &Path, value: &Value) -> Value {
        let mut value = value.clone();
        let depth = at.segs().len();
        for d in &self.c.derivations {
            let segs = d.path.segs();
            if segs.len() <= depth || !Path(segs[..depth].to_vec()).matches(at) {
                continue;
            }
            let rest = Path(segs[depth..].to_vec());
            for inner in rest.expand(&value).into_iter().rev() {
                if inner.get(&value).is_some() {
                    inner.remove(&mut value);
                }
            }
        }
        value
    }
}
