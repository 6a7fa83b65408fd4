//! The undo journal: a refused cycle leaves the state exactly as it was (values, key order,
//! derived and meta values, effect memory), and `get_state` `at` rebuilds every recorded state.

use serde_json::{Map, Value, json};
use valem::engine::budget::Budget;
use valem::engine::model::{Model, admit_any};
use valem::engine::state::State;

fn spec() -> Value {
    json!({
        "id": "orders",
        "schema": { "type": "object", "properties": { "limit": { "type": "number", "default": 100 } } },
        "defaultValues": [{ "path": "$.items[*]", "expr": "{ \"qty\": 1 }" }],
        "derivations": [
            { "path": "$.items[*].line", "expr": "$parent.price * $parent.qty" },
            { "path": "$.total", "expr": "$sum(items.line)" }
        ],
        "metaDerivations": [{ "path": "$.note", "property": "required", "expr": "total > 50" }],
        "constraints": [{ "id": "cap", "expr": "total = null or total <= limit", "message": "over the limit", "policy": "rollback" }],
        "effects": [{ "id": "big", "executor": "caller", "trigger": "total > 20" }]
    })
}

fn mutations(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

/// Everything a state holds, in order, as text.
fn snapshot(s: &State) -> String {
    let derived: Vec<(String, &Value)> = s.derived.iter().map(|(p, v)| (p.to_string(), v)).collect();
    let meta: Vec<(String, &Map<String, Value>)> = s.meta.iter().map(|(p, m)| (p.to_string(), m)).collect();
    format!("{}\n{}\n{}\n{}", s.base, s.doc, json!(derived), json!(meta))
}

#[test]
fn a_refused_cycle_leaves_the_state_exactly_as_it_was() {
    let mut model = Model::create(&spec(), &Budget::default(), &admit_any).unwrap();
    model
        .mutate(&mutations(json!({ "$.items[0].price": 10, "$.items[1].price": 15 })), &Budget::default(), &admit_any)
        .unwrap();
    let before = snapshot(&model.state);
    assert!(before.contains("\"total\":25"), "{before}");

    // New containers, a grown array, a new top-level key, recomputed wildcard values, meta and
    // effect memory: all undone when the rollback constraint refuses the cycle.
    let refused = json!({ "$.items[3].price": 90, "$.items[0].price": 5, "$.extra.deep": [1], "$.note": "n" });
    assert!(model.mutate(&mutations(refused), &Budget::default(), &admit_any).is_err());
    assert_eq!(snapshot(&model.state), before);
    assert!(model.mutate(&mutations(json!({ "$.limit": "x" })), &Budget::default(), &admit_any).is_err());
    assert_eq!(snapshot(&model.state), before);
}

#[test]
fn every_recorded_state_is_rebuilt_from_the_journal() {
    let mut model = Model::create(&spec(), &Budget::default(), &admit_any).unwrap();
    let mut states = vec![model.merged(&Budget::default())];
    for m in [
        json!({ "$.items[0].price": 10 }),
        json!({ "$.items[2].price": 20, "$.note": "x" }),
        json!({ "$.items": [{ "price": 1 }] }),
        json!({ "$.limit": 1000, "$.items[0].qty": 30 }),
    ] {
        model.mutate(&mutations(m), &Budget::default(), &admit_any).unwrap();
        states.push(model.merged(&Budget::default()));
    }
    let entries: Vec<_> = model.history.iter().map(|h| h.at).collect();
    assert_eq!(entries.len(), states.len());
    for (n, at) in entries.iter().enumerate() {
        // Entries that share an instant: `at` gives the newest of them.
        let newest = entries.iter().rposition(|t| t <= at).unwrap();
        assert_eq!(model.merged_at(*at, &Budget::default()).as_ref(), Some(&states[newest]), "entry {n}");
    }
    assert_eq!(model.merged_at(entries[0] - chrono::Duration::seconds(1), &Budget::default()), None);
}
