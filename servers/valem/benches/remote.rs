//! `mutate` round trips over stdio in remote mode (`valem mcp --url`, each call forwarded over
//! HTTP to a `valem serve` started on a free loopback port) against the embedded server
//! (`valem mcp`): what the hop costs. A small model and car-loan-calculator (a 60-row schedule
//! recomputed every time). Printed figures, nothing asserted.

#[path = "support/examples.rs"]
mod examples;
#[path = "../tests/support/mcp_client.rs"]
mod mcp_client;
// The benchmark does not read what the server printed, which the tests check.
#[allow(dead_code)]
#[path = "../tests/support/served.rs"]
mod served;
#[path = "support/timing.rs"]
mod timing;

use std::path::Path;

use serde_json::{Value, json};

use mcp_client::Client;

const RUNS: usize = 200;

fn main() {
    let binary = Path::new(env!("CARGO_BIN_EXE_valem"));
    let served = served::Served::start(binary, &[]);
    let small = json!({ "id": "counter", "schema": { "type": "object", "properties": { "n": { "type": "number" } } },
        "derivations": [{ "path": "$.double", "expr": "n * 2" }] });
    let mut models = vec![("counter", small, json!({}), "$.n")];
    if let Some(loan) = examples::named("car-loan-calculator") {
        let given = json!({ "$.loanAmount": 20000, "$.annualRatePercent": 6, "$.termMonths": 60 });
        models.push(("car-loan-calculator", loan, given, "$.loanAmount"));
    }
    let mut embedded = Client::start(binary, &[]).expect("valem mcp starts");
    let mut remote = Client::start(binary, &["--url", &served.url]).expect("remote mode starts");
    for (id, spec, given, field) in &models {
        let time = |client: &mut Client| {
            for (tool, args) in
                [("create_model", json!({ "spec": spec })), ("mutate", json!({ "id": id, "mutations": given }))]
            {
                let answer = client.call(tool, args).expect("the server answers");
                assert!(!answer.is_error, "{tool}: {}", answer.body);
            }
            let mut n = 0;
            timing::mean_of(RUNS, || {
                n += 1;
                let mutations: Value = json!({ *field: 20000 + n % 2 });
                let _ = client.call("mutate", json!({ "id": id, "mutations": mutations }));
            })
        };
        let (inside, hop) = (time(&mut embedded), time(&mut remote));
        println!(
            "mutate {id}: embedded {}, remote {} ({:.1}x, {} more per call)",
            timing::show(inside),
            timing::show(hop),
            hop.as_secs_f64() / inside.as_secs_f64(),
            timing::show(hop.saturating_sub(inside))
        );
    }
}
