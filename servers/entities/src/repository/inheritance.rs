//! `Extends`: each entity's ancestor chain (nearest first) and descendants, with unknown parents
//! and cycles reported per entity.

use std::collections::{BTreeMap, BTreeSet};

/// The `Extends` value of every entity whose definition could be read.
pub type Parents = BTreeMap<String, String>;

/// The ancestors of `name`, parent first, or why they cannot be known.
pub fn ancestors(parents: &Parents, name: &str) -> Result<Vec<String>, String> {
    let mut chain: Vec<String> = Vec::new();
    let mut current = name;
    loop {
        let parent = match parents.get(current) {
            Some(parent) if parent.is_empty() => return Ok(chain),
            Some(parent) => parent,
            None => return Err(format!("extends {current:?}, whose definition cannot be read or does not exist")),
        };
        if parent == name || chain.contains(parent) {
            let mut cycle: Vec<&str> = std::iter::once(name).chain(chain.iter().map(String::as_str)).collect();
            cycle.push(parent);
            return Err(format!("`Extends` forms a cycle: {}", cycle.join(" → ")));
        }
        chain.push(parent.clone());
        current = parent;
    }
}

/// Every entity that extends `name`, directly or not, sorted by name.
pub fn descendants(parents: &Parents, name: &str) -> Vec<String> {
    let mut found = BTreeSet::new();
    let mut frontier = vec![name.to_owned()];
    while let Some(next) = frontier.pop() {
        for (child, parent) in parents {
            if *parent == next && child != name && found.insert(child.clone()) {
                frontier.push(child.clone());
            }
        }
    }
    found.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parents(pairs: &[(&str, &str)]) -> Parents {
        pairs.iter().map(|(c, p)| (c.to_string(), p.to_string())).collect()
    }

    #[test]
    fn chains_and_descendants() {
        let p = parents(&[("Base", ""), ("Post", "Base"), ("Article", "Post"), ("Page", "Base")]);
        assert_eq!(ancestors(&p, "Article").unwrap(), ["Post", "Base"]);
        assert_eq!(ancestors(&p, "Base").unwrap(), Vec::<String>::new());
        assert_eq!(descendants(&p, "Base"), ["Article", "Page", "Post"]);
        assert_eq!(descendants(&p, "Article"), Vec::<String>::new());
    }

    #[test]
    fn cycles_and_unknown_parents_are_errors() {
        let p = parents(&[("A", "B"), ("B", "C"), ("C", "A"), ("D", "A"), ("E", "Nope"), ("F", "F")]);
        assert_eq!(ancestors(&p, "A").unwrap_err(), "`Extends` forms a cycle: A → B → C → A");
        assert!(ancestors(&p, "D").unwrap_err().contains("cycle"));
        assert!(ancestors(&p, "E").unwrap_err().contains("\"Nope\""));
        assert_eq!(ancestors(&p, "F").unwrap_err(), "`Extends` forms a cycle: F → F");
        assert_eq!(descendants(&p, "A"), ["B", "C", "D"]);
    }
}
