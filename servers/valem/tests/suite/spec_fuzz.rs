//! The ModelSpec validator under arbitrary input: seeded random specs, shaped like ModelSpecs
//! from pools of keys, addresses and expressions with odd values mixed in, never panic and
//! never hang, in `compile` or in the creation cycle. A spec that once failed is kept below as
//! a regression case.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use valem::engine::budget::Budget;
use valem::engine::model::{self, Model, admit_any};
use valem::engine::testing;

/// How many random specs one run tries, and from which seed.
const CASES: usize = 400;
const SEED: u64 = 0x005e_ed0f_5bec;
/// The whole run's bound: a spec that hangs the validator fails the test instead of the CI.
const RUN_LIMIT: Duration = Duration::from_secs(240);

/// Fixed cases: odd specs worth keeping whatever the generator draws; a spec it finds failing
/// goes here too.
const REGRESSIONS: &[&str] = &[
    r#"{"id":"r","schema":{},"derivations":[{"path":"$","expr":"1"}]}"#,
    r#"{"id":"r","schema":{"type":"array"},"derivations":[{"path":"$[*]","expr":"$"}]}"#,
    r#"{"id":"r","schema":{},"defaultValues":[{"path":"$..a","expr":"{}"}]}"#,
];

const KEYS: &[&str] = &[
    "id",
    "version",
    "schema",
    "constants",
    "library",
    "defaultValues",
    "derivations",
    "metaDerivations",
    "constraints",
    "effects",
    "tests",
    "viewDefinition",
    "path",
    "expr",
    "evaluation",
    "property",
    "message",
    "policy",
    "executor",
    "trigger",
    "dedupeKey",
    "statusPath",
    "payload",
    "given",
    "expect",
    "description",
    "type",
    "properties",
    "default",
    "minimum",
    "maximum",
    "items",
    "required",
    "enum",
    "$ref",
    "define",
    "paths",
];
const STRINGS: &[&str] = &[
    "$",
    "$.a",
    "$.a.b",
    "$.items[*].x",
    "$.items[0]",
    "$[0]",
    "$.",
    "$..a",
    "$.a[*][*]",
    "$['a b']",
    "a",
    "",
    "a + b",
    "$sum(items.x)",
    "$parent.x * 2",
    "(",
    "$pad('', 1e9)",
    "[1..n]",
    "$f()",
    "$self",
    "$const.k",
    "items[x > 1].y",
    "$millis()",
    "function($x) { $x }",
    "lazy",
    "eager",
    "rollback",
    "flag",
    "warn",
    "number",
    "object",
    "array",
    "string",
    "integer",
    "required",
    "readOnly",
    "minimum",
    "relevant",
    "#/definitions/a",
    "\u{0}",
    "é",
    "$.a.b.c.d.e.f",
];

/// Addresses and expressions that compile, for specs that get as far as the creation cycle.
const GOOD_PATHS: &[&str] = &["$.a", "$.b", "$.t", "$.items[*].line", "$.n.x"];
const GOOD_EXPRS: &[&str] = &[
    "a + 1",
    "$sum(items.line)",
    "$parent.price * $parent.qty",
    "[1..n]",
    "$string(a) & b",
    "a > 0",
    "$pad('', a)",
    "$count(items)",
    "{ \"q\": 1 }",
    "$replace(b, 'x', 'yy')",
    "items[price > 1].qty",
];

#[path = "../../../../tests/fuzz.rs"]
mod fuzz;

/// ModelSpec shapes drawn from the shared seeded generator.
struct Rng(fuzz::Rng);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0.usize(..n)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        fuzz::pick(&mut self.0, items)
    }

    fn value(&mut self, depth: usize) -> Value {
        match self.below(if depth == 0 { 5 } else { 9 }) {
            0 => Value::Null,
            1 => json!(self.below(2) == 0),
            2 => json!([0.0, -1.0, 1e308, 0.5, 3.0, -1e-308][self.below(6)]),
            3 | 4 => json!(self.pick(STRINGS)),
            5 | 6 => self.object(depth - 1),
            _ => Value::Array((0..self.below(4)).map(|_| self.value(depth - 1)).collect()),
        }
    }

    fn object(&mut self, depth: usize) -> Value {
        let mut map = Map::new();
        for _ in 0..self.below(5) {
            map.insert(self.pick(KEYS).to_owned(), self.value(depth));
        }
        Value::Object(map)
    }

    /// Half the time a spec that compiles, one of its fields then replaced by anything; else
    /// mostly a ModelSpec's shape.
    fn spec(&mut self) -> Value {
        if self.below(2) == 0 { self.nearly_valid() } else { self.shaped() }
    }

    fn nearly_valid(&mut self) -> Value {
        let nodes = |rng: &mut Rng, keys: &[&str]| -> Value {
            (0..1 + rng.below(3))
                .map(|i| {
                    let mut node = Map::new();
                    node.insert("id".into(), json!(format!("n{i}")));
                    for key in keys {
                        let text = if *key == "path" { rng.pick(GOOD_PATHS) } else { rng.pick(GOOD_EXPRS) };
                        node.insert((*key).into(), json!(text));
                    }
                    Value::Object(node)
                })
                .collect()
        };
        let mut spec = json!({
            "id": "fuzz",
            "schema": { "type": "object" },
            "derivations": nodes(self, &["path", "expr"]),
            "constraints": nodes(self, &["expr"]),
            "tests": [{ "given": { "$.a": 2, "$.b": "x", "$.n": 3 }, "expect": {} }],
        });
        if self.below(2) == 0 {
            let section = ["derivations", "constraints", "schema", "tests", "id"][self.below(5)];
            spec[section] = self.value(3);
        }
        spec
    }

    /// A ModelSpec's shape from random parts: its sections, each a list of nodes with the keys they take.
    fn shaped(&mut self) -> Value {
        let mut spec = match self.object(2) {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        spec.insert("id".into(), json!("fuzz"));
        for section in ["derivations", "metaDerivations", "constraints", "effects", "defaultValues", "tests"] {
            if self.below(3) > 0 {
                let nodes = (0..self.below(4)).map(|_| self.node()).collect();
                spec.insert(section.into(), Value::Array(nodes));
            }
        }
        if self.below(2) == 0 {
            spec.insert("schema".into(), self.object(3));
        }
        Value::Object(spec)
    }

    fn node(&mut self) -> Value {
        let mut node = match self.object(1) {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        for key in ["path", "expr", "id", "trigger", "property", "policy"] {
            if self.below(3) > 0 {
                node.insert(key.into(), json!(self.pick(STRINGS)));
            }
        }
        Value::Object(node)
    }
}

/// Compiles `spec` and, when it compiles, creates it and runs its tests; a panic is the
/// failure. Says whether it compiled.
fn survives(spec: &Value, budget: &Budget) -> Result<bool, String> {
    catch_unwind(AssertUnwindSafe(|| match model::compile(spec) {
        Ok((compiled, _)) => {
            let compiled = std::sync::Arc::new(compiled);
            let _ = Model::from_compiled(std::sync::Arc::clone(&compiled), budget, &admit_any);
            testing::run(&compiled, &compiled.spec.tests, budget);
            true
        }
        Err(_) => false,
    }))
    .map_err(|_| format!("the validator panicked on {spec}"))
}

#[test]
fn arbitrary_specs_never_panic_or_hang() {
    let started = Instant::now();
    let budget = Budget { cycle_time: Duration::from_millis(200), ..Budget::default() };
    for text in REGRESSIONS {
        survives(&serde_json::from_str(text).unwrap(), &budget).unwrap();
    }
    let (generator, seed, cases) = fuzz::run(SEED, CASES);
    let mut rng = Rng(generator);
    let mut compiled = 0;
    for case in 0..cases {
        let spec = rng.spec();
        let ok = survives(&spec, &budget).unwrap_or_else(|why| panic!("case {case} (seed {seed:#x}): {why}"));
        compiled += usize::from(ok);
        assert!(started.elapsed() < RUN_LIMIT, "case {case} (seed {seed:#x}) took the run past {RUN_LIMIT:?}: {spec}");
    }
    // The creation cycle and the tests are exercised too, not only the refusals.
    assert!(compiled * 5 >= cases, "only {compiled} of {cases} specs compiled");
}
