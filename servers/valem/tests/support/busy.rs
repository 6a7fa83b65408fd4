//! A model whose one derivation keeps the CPU busy for `ms` milliseconds (a tail-recursive wait
//! on the clock) and then gives `ms`: the work of a long cycle, of a known least length.

use serde_json::{Value, json};

pub fn spec(id: &str) -> Value {
    json!({
        "id": id,
        "schema": { "type": "object", "properties": { "ms": { "type": "number" } } },
        "derivations": [{
            "path": "$.waited",
            "expr": "($wait := function($until) { $millis() < $until ? $wait($until) : ms }; ms > 0 ? $wait($millis() + ms) : 0)"
        }]
    })
}

/// `mutate`'s arguments that keep `id` busy for `ms`.
pub fn mutate(id: &str, ms: u64) -> Value {
    json!({ "id": id, "mutations": { "$.ms": ms } })
}
