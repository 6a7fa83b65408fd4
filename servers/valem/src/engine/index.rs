//! Nodes by the root field of the addresses they read or name, so that a cycle looks only at
//! the nodes under the root fields it changed, not at every node of the spec.

use std::collections::HashMap;

use super::path::{Path, Seg};

#[derive(Debug, Default)]
pub struct RootIndex {
    by_key: HashMap<String, Vec<usize>>,
    /// Nodes with an address at the root itself (`$`, `$[0]`, `$[*]`): any change may touch them.
    everywhere: Vec<usize>,
    len: usize,
}

fn root_key(path: &Path) -> Option<&str> {
    match path.segs().first() {
        Some(Seg::Key(k)) => Some(k),
        _ => None,
    }
}

impl RootIndex {
    /// Indexes node `i` under the root fields of `addresses[i]`.
    pub fn build<'a>(addresses: impl IntoIterator<Item = Vec<&'a Path>>) -> RootIndex {
        let mut index = RootIndex::default();
        for (i, paths) in addresses.into_iter().enumerate() {
            index.len = i + 1;
            for path in paths {
                match root_key(path) {
                    Some(k) => index.by_key.entry(k.to_owned()).or_default().push(i),
                    None => index.everywhere.push(i),
                }
            }
        }
        index
    }

    /// The nodes that may overlap one of `changed`, ascending, each once: a superset of those
    /// that do, to be checked exactly by the caller.
    pub fn candidates(&self, changed: &[Path]) -> Vec<usize> {
        if changed.iter().any(|c| root_key(c).is_none()) {
            return (0..self.len).collect();
        }
        let mut out: Vec<usize> = self.everywhere.clone();
        for c in changed {
            out.extend(root_key(c).and_then(|k| self.by_key.get(k)).into_iter().flatten());
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_finds_the_nodes_under_its_root_field() {
        let p = |s: &str| Path::parse(s).unwrap();
        let (a, b, all) = (p("$.a.x"), p("$.b"), p("$"));
        let index = RootIndex::build([vec![&a], vec![&b], vec![&all], vec![&b, &a]]);
        assert_eq!(index.candidates(&[p("$.a")]), [0, 2, 3]);
        assert_eq!(index.candidates(&[p("$.c")]), [2]);
        assert_eq!(index.candidates(&[p("$")]), [0, 1, 2, 3]);
    }
}
