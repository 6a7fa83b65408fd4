//! `mutate` and `patch_model` round trips on car-loan-calculator: in process (the tool called on
//! the server value) and over stdio (the `valem mcp` binary), as calls per second. Each write
//! changes the loan amount, so the whole cascade (payment, totals, the 60-row schedule) is
//! recomputed every time.

#[path = "support/examples.rs"]
mod examples;
#[path = "../tests/support/mcp_client.rs"]
mod mcp_client;
#[path = "support/timing.rs"]
mod timing;

use std::path::Path;

use serde_json::{Value, json};

const RUNS: usize = 200;
const ID: &str = "car-loan-calculator";

/// The arguments of the `n`th write by `tool`: the amount alternates, so every write changes it.
fn write(tool: &str, n: usize) -> Value {
    let amount = 20000 + n % 2;
    match tool {
        "mutate" => json!({ "id": ID, "mutations": { "$.loanAmount": amount } }),
        _ => json!({ "id": ID, "patch": [{ "op": "replace", "path": "/loanAmount", "value": amount }] }),
    }
}

fn report(tool: &str, transport: &str, mean: std::time::Duration) {
    println!("{tool} {ID}, {transport}: {} ({:.0} per second)", timing::show(mean), 1.0 / mean.as_secs_f64());
}

fn main() {
    let Some(spec) = examples::named(ID) else { return };
    let given = json!({ "$.loanAmount": 20000, "$.annualRatePercent": 6, "$.termMonths": 60 });
    let setup = [("create_model", json!({ "spec": spec })), ("mutate", json!({ "id": ID, "mutations": given }))];

    let server = valem::server().expect("the tool table builds");
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    let call = |tool: &str, args: Value| {
        runtime.block_on(server.call_tool(
            server.cx(&tooltable::transport::RequestContext::new(tooltable::context::Transport::InProcess)),
            tool,
            Some(args),
        ))
    };
    for (tool, args) in &setup {
        call(tool, args.clone()).expect("known tool").expect("set up");
    }
    let mut client = mcp_client::Client::start(Path::new(env!("CARGO_BIN_EXE_valem")), &[]).expect("valem starts");
    for (tool, args) in &setup {
        let answer = client.call(tool, args.clone()).expect("the server answers");
        assert!(!answer.is_error, "{tool}: {}", answer.body);
    }
    let mut n = 0;
    for tool in ["mutate", "patch_model"] {
        let in_process = timing::mean_of(RUNS, || {
            n += 1;
            let _ = call(tool, write(tool, n));
        });
        report(tool, "in process", in_process);
        let over_stdio = timing::mean_of(RUNS, || {
            n += 1;
            let _ = client.call(tool, write(tool, n));
        });
        report(tool, "over stdio", over_stdio);
    }
}
