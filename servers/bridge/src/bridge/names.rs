//! Tool names for capability ids: every character outside letters, digits, `_` and `-` becomes
//! `_`. Ids that come out the same are all served: in byte order of id, the first keeps the name
//! and the others get `_2`, `_3`, ... (the lowest suffix not taken), and each collision is logged.

use std::collections::{BTreeMap, BTreeSet};

/// The longest tool name MCP hosts accept.
const MAX_NAME: usize = 128;

/// The sanitized form of an id, cut to leave room for a suffix.
pub fn sanitize(id: &str) -> String {
    let name: String = id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .take(MAX_NAME - 4)
        .collect();
    if name.is_empty() { "_".to_owned() } else { name }
}

/// A collision: the ids that sanitize to `name`, and the names they were given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collision {
    pub name: String,
    pub given: Vec<(String, String)>,
}

/// Names every id (tool name → id), none of them a name in `reserved`; with the collisions.
pub fn assign<'a>(
    ids: impl IntoIterator<Item = &'a str>,
    reserved: &[&str],
) -> (BTreeMap<String, String>, Vec<Collision>) {
    let ids: BTreeSet<&str> = ids.into_iter().collect();
    let mut groups: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for id in &ids {
        groups.entry(sanitize(id)).or_default().push(id);
    }
    let mut taken: BTreeSet<String> = reserved.iter().map(|s| (*s).to_owned()).collect();
    taken.extend(groups.iter().filter(|(_, ids)| ids.len() == 1).map(|(name, _)| name.clone()));
    let mut named = BTreeMap::new();
    let mut collisions = Vec::new();
    for (name, group) in groups {
        let clash = group.len() > 1 || reserved.contains(&name.as_str());
        if !clash {
            named.insert(name, group[0].to_owned());
            continue;
        }
        let mut given = Vec::new();
        let mut n = 1;
        for (i, id) in group.iter().enumerate() {
            let candidate = if i == 0 && !reserved.contains(&name.as_str()) {
                name.clone()
            } else {
                loop {
                    n += 1;
                    let c = format!("{name}_{n}");
                    if !taken.contains(&c) {
                        break c;
                    }
                }
            };
            taken.insert(candidate.clone());
            given.push(((*id).to_owned(), candidate.clone()));
            named.insert(candidate, (*id).to_owned());
        }
        collisions.push(Collision { name, given });
    }
    (named, collisions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_rule() {
        assert_eq!(sanitize("tool.risk"), "tool_risk");
        assert_eq!(sanitize("agent.wakeup"), "agent_wakeup");
        assert_eq!(sanitize("a-b_c9"), "a-b_c9");
        assert_eq!(sanitize("é/x y"), "__x_y");
        assert_eq!(sanitize(""), "_");
        assert_eq!(sanitize(&"x".repeat(300)).len(), 124);
    }

    #[test]
    fn colliding_ids_are_all_served_in_a_fixed_order() {
        let (named, collisions) = assign(["tool_risk", "tool.risk", "tool_risk_2", "x"], &[]);
        let names: Vec<(&str, &str)> = named.iter().map(|(n, i)| (n.as_str(), i.as_str())).collect();
        assert_eq!(
            names,
            [("tool_risk", "tool.risk"), ("tool_risk_2", "tool_risk_2"), ("tool_risk_3", "tool_risk"), ("x", "x")]
        );
        assert_eq!(collisions.len(), 1);
        assert_eq!(collisions[0].name, "tool_risk");
        // The same ids in another order get the same names.
        assert_eq!(assign(["x", "tool_risk_2", "tool.risk", "tool_risk"], &[]).0, named);
    }

    #[test]
    fn reserved_names_are_never_given() {
        let (named, collisions) = assign(["jevalan.run_flow"], &["jevalan_run_flow"]);
        assert_eq!(named.keys().collect::<Vec<_>>(), ["jevalan_run_flow_2"]);
        assert_eq!(collisions.len(), 1);
    }
}
