//! The official JSONata suite (`tests/jsonata-suite`, MIT) through `eval_expression` over stdio:
//! every case but the heavy ones (those that set their own time limit, whose outcome would
//! depend on the machine's speed). `scripts/jsonata-suite.sh` runs all of them on a release build.

use crate::support::jsonata_suite;
use crate::support::mcp_client;

use std::path::Path;

#[test]
fn at_least_99_percent_of_the_suite_passes() {
    let cases = jsonata_suite::load(Path::new(jsonata_suite::DIR)).unwrap();
    assert!(cases.len() > 1_600, "the suite is incomplete: {} cases", cases.len());
    let mut client = mcp_client::Client::start(Path::new(env!("CARGO_BIN_EXE_valem")), &[]).unwrap();
    let mut tally = jsonata_suite::Tally::default();
    let mut failures = Vec::new();
    for case in cases.iter().filter(|c| c.timelimit.is_none()) {
        let outcome = jsonata_suite::run(&mut client, case).unwrap();
        if let Err(why) = &outcome {
            failures.push(format!("{}/{}: {why}", case.group, case.name));
        }
        tally.add(&case.group, outcome.is_ok());
    }
    let (pass, fail) = tally.totals();
    println!(
        "JSONata suite through eval_expression: {pass} of {} cases pass ({} heavy cases left to the script)",
        pass + fail,
        cases.len() - pass - fail
    );
    assert!(pass * 100 >= (pass + fail) * 99, "{}\n{}", failures.join("\n"), tally.report());
}
