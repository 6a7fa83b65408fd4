//! Incremental scaling: a model of N independent derivations (`out_i = in_i * 2`), the same
//! one-field mutation at N = 10 and N = 1,000. The cost should follow what the write affects
//! (one derivation), not N; the ratio is printed, not asserted.

#[path = "support/timing.rs"]
mod timing;

use std::time::Duration;

use serde_json::{Map, Value, json};
use valem::engine::budget::Budget;
use valem::engine::model::{Model, admit_any};

const RUNS: usize = 2_000;

/// A spec of `n` derivations, each reading its own input.
fn spec(n: usize) -> Value {
    let derivations: Vec<Value> =
        (0..n).map(|i| json!({ "path": format!("$.out{i}"), "expr": format!("in{i} * 2") })).collect();
    json!({ "id": format!("independent-{n}"), "schema": { "type": "object" }, "derivations": derivations })
}

/// The mean cost of writing `in0` in a model of `n` derivations, every input filled.
fn one_field_mutation(n: usize) -> Duration {
    let budget = Budget::default();
    let mut model = Model::create(&spec(n), &budget, &admit_any).expect("the generated spec compiles");
    let all: Map<String, Value> = (0..n).map(|i| (format!("$.in{i}"), json!(i))).collect();
    model.mutate(&all, &budget, &admit_any).expect("every input written");
    let writes: [Map<String, Value>; 2] = [0, 1].map(|v| Map::from_iter([("$.in0".to_owned(), json!(v))]));
    let mut k = 0;
    timing::mean_of(RUNS, || {
        k += 1;
        let _ = model.mutate(&writes[k % 2], &budget, &admit_any);
    })
}

fn main() {
    let small = one_field_mutation(10);
    let large = one_field_mutation(1_000);
    println!("one-field mutate, 10 derivations:        {}", timing::show(small));
    println!("one-field mutate, 1,000 derivations:     {}", timing::show(large));
    println!(
        "scaling ratio (1,000 / 10):              {:.2}x (target: at most 3x)",
        large.as_secs_f64() / small.as_secs_f64()
    );
}
