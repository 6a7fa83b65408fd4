//! Runs the official JSONata test suite through `valem mcp`'s `eval_expression` tool and prints
//! pass and fail per group and the total. `scripts/jsonata-suite.sh` builds and runs it.
//!
//! jsonata_suite --valem PATH [--suite DIR] [--failures]
//!
//! DIR defaults to the suite in the repository, `tests/jsonata-suite`.

#[path = "../tests/support/jsonata_suite.rs"]
mod jsonata_suite;
#[path = "../tests/support/mcp_client.rs"]
mod mcp_client;

use std::path::PathBuf;
use std::process::ExitCode;

/// The suite's heavy cases build ranges of 10,000,000 items, JSONata's own limit: valem's
/// sequence and memory limits are raised to let them.
const SUITE_LIMITS: &[&str] = &["--max-sequence", "10000000", "--max-eval-bytes", "2147483648"];

const USAGE: &str = "usage: jsonata_suite --valem PATH [--suite DIR] [--failures]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("{why}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let (mut valem, mut suite, mut show_failures) = (None, None, false);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--valem" => valem = args.next().map(PathBuf::from),
            "--suite" => suite = args.next().map(PathBuf::from),
            "--failures" => show_failures = true,
            _ => return Err(USAGE.into()),
        }
    }
    let Some(valem) = valem else { return Err(USAGE.into()) };
    let suite = suite.unwrap_or_else(|| PathBuf::from(jsonata_suite::DIR));
    let cases = jsonata_suite::load(&suite)?;
    let mut client =
        mcp_client::Client::start(&valem, SUITE_LIMITS).map_err(|e| format!("{}: {e}", valem.display()))?;
    let mut tally = jsonata_suite::Tally::default();
    for case in &cases {
        let outcome =
            jsonata_suite::run(&mut client, case).map_err(|e| format!("{}/{}: {e}", case.group, case.name))?;
        if let (Err(why), true) = (&outcome, show_failures) {
            let heavy = case.timelimit.map(|ms| format!(" (the suite allows it {ms} ms)")).unwrap_or_default();
            println!("FAIL {}/{}: {}{heavy}\n     {}", case.group, case.name, case.expr.trim(), why);
        }
        tally.add(&case.group, outcome.is_ok());
    }
    print!("{}", tally.report());
    Ok(())
}
