//! `verify_audit` over a trail of 100,000 records (each hashed again and chained), and
//! `evolve_spec` on the largest example spec (diff, validation, compile, recompute), in process.

#[path = "support/examples.rs"]
mod examples;
#[path = "support/timing.rs"]
mod timing;

use serde_json::{Value, json};
use tooltable::Server;
use valem::tools::registry::Models;

const RECORDS: usize = 100_000;
const EVOLUTIONS: usize = 50;

fn caller(server: &Server<Models>) -> impl Fn(&str, Value) -> Value + '_ {
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    move |tool, args| runtime.block_on(server.call(tool, args)).unwrap_or_else(|e| panic!("{tool}: {}", e.body))
}

fn verify_audit() {
    let limits = valem::options::Limits { max_audit_records: RECORDS, max_audit_bytes: 1 << 30, ..Default::default() };
    let server = valem::server_with(limits).expect("the tool table builds");
    let call = caller(&server);
    let spec = json!({ "id": "counter", "schema": {}, "derivations": [{ "path": "$.twice", "expr": "n * 2" }] });
    call("create_model", json!({ "spec": spec }));
    for n in 0..RECORDS {
        call("mutate", json!({ "id": "counter", "mutations": { "$.n": n } }));
    }
    let mut checked = Value::Null;
    let mean = timing::mean_of(3, || checked = call("verify_audit", json!({ "id": "counter" })));
    assert_eq!(checked["recordsChecked"], RECORDS, "{checked}");
    println!(
        "verify_audit of {RECORDS} records: {} ({:.0} records per second)",
        timing::show(mean),
        RECORDS as f64 / mean.as_secs_f64()
    );
}

fn evolve_spec() {
    let Some(name) = examples::largest() else { return };
    let Some(spec) = examples::named(&name) else { return };
    let server = valem::server().expect("the tool table builds");
    let call = caller(&server);
    let id = call("create_model", json!({ "spec": spec }))["id"].clone();
    if let Some(given) = spec["tests"][0]["given"].as_object() {
        call("mutate", json!({ "id": id, "mutations": given }));
    }
    // Each evolution replaces the first derivation with itself under a new version: the diff,
    // the full validation, the compile and the recompute of every derivation all run.
    let first = spec["derivations"][0].clone();
    let mut n = 0;
    let mean = timing::mean_of(EVOLUTIONS, || {
        n += 1;
        let evolution = json!({ "newVersion": format!("1.0.{n}"), "upsertDerivations": [first] });
        call("evolve_spec", json!({ "id": id, "evolution": evolution }));
    });
    println!(
        "evolve_spec on {name} ({} derivations): {}",
        spec["derivations"].as_array().map_or(0, Vec::len),
        timing::show(mean)
    );
}

fn main() {
    verify_audit();
    evolve_spec();
}
