//! `mutate` round trips on car-loan-calculator: in process (the tool called on the server
//! value) and over stdio (the `valem mcp` binary). Each mutation changes the loan amount, so the
//! whole cascade (payment, totals, the 60-row schedule) is recomputed every time.

#[path = "support/examples.rs"]
mod examples;
#[path = "../tests/support/mcp_client.rs"]
mod mcp_client;
#[path = "support/timing.rs"]
mod timing;

use std::path::Path;

use serde_json::{Value, json};
use tooltable::Cx;

const RUNS: usize = 200;

fn main() {
    let Some(spec) = examples::named("car-loan-calculator") else { return };
    let given = json!({ "$.loanAmount": 20000, "$.annualRatePercent": 6, "$.termMonths": 60 });
    let mutation = |n: usize| json!({ "id": "car-loan-calculator", "mutations": { "$.loanAmount": 20000 + n % 2 } });

    let server = valem::server().expect("the tool table builds");
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    let call = |tool: &str, args: Value| runtime.block_on(server.call_tool(Cx::detached(&server), tool, Some(args)));
    call("create_model", json!({ "spec": spec })).expect("known tool").expect("created");
    call("mutate", json!({ "id": "car-loan-calculator", "mutations": given })).expect("known tool").expect("mutated");
    let mut n = 0;
    let in_process = timing::mean_of(RUNS, || {
        n += 1;
        let _ = call("mutate", mutation(n));
    });
    println!("mutate car-loan-calculator, in process:  {}", timing::show(in_process));

    let mut client = mcp_client::Client::start(Path::new(env!("CARGO_BIN_EXE_valem")), &[]).expect("valem starts");
    for (tool, args) in [
        ("create_model", json!({ "spec": spec })),
        ("mutate", json!({ "id": "car-loan-calculator", "mutations": given })),
    ] {
        let answer = client.call(tool, args).expect("the server answers");
        assert!(!answer.is_error, "{tool}: {}", answer.body);
    }
    let over_stdio = timing::mean_of(RUNS, || {
        n += 1;
        let _ = client.call("mutate", mutation(n));
    });
    println!("mutate car-loan-calculator, over stdio:  {}", timing::show(over_stdio));
}
