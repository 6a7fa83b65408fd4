//! The session file parser under arbitrary text: lines of every kind it reads (comments, blank
//! lines, sent and received messages), mutated by the shared generator, and kept regression
//! texts. Parsing never panics, and for what parses, rendering and parsing again gives the same
//! lines with the same numbers.

use std::panic::catch_unwind;

use serde_json::json;
use tooltable_golden::session::{Line, RECEIVED, SENT, SessionFile};

#[path = "../../tests/fuzz.rs"]
mod fuzz;

const SEED: u64 = 0x005e_ed0f_901d;
const CASES: usize = 3000;

/// Texts kept because they are the edges of the format.
const REGRESSIONS: &[&str] = &[
    "",
    "\n",
    "\r\n",
    "# a\r\n→ {}\r\n",
    "# a\rb\n",
    "# trailing carriage return\r",
    "\u{feff}→ {}\n",
    "  → {\"a\":1}  \n",
    "→ {\"a\":1,\"a\":2}\n",
    "→ 0.1000000000000000055511151231257827\n",
    "→ 1e400\n",
    "←\n",
    "→ \n",
    "\t# tab\n\u{2028}\n",
];

/// One line of a session file, most of them well formed.
fn line(rng: &mut fuzz::Rng) -> String {
    let message = || json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": "add" } });
    match rng.u8(..8) {
        0 => String::new(),
        1 => format!("# {}", fuzz::pick(rng, fuzz::ODD_STRINGS)),
        2 => format!("{SENT}{}", message()),
        3 => format!("{RECEIVED}{}", fuzz::value(rng, 3)),
        4 => format!(
            "{}{}",
            fuzz::pick(rng, &[SENT, RECEIVED]),
            String::from_utf8_lossy(&fuzz::mutate(rng, message().to_string().as_bytes()))
        ),
        5 => String::from_utf8_lossy(&fuzz::bytes(rng, 40)).into_owned(),
        _ => format!("{}{SENT}{}", fuzz::pick(rng, &["", " ", "\t", "\r"]), fuzz::value(rng, 2)),
    }
}

/// Parses `text` and, when it parses, checks the round trip; a panic or a difference is the failure.
fn round_trips(text: &str) -> Result<(), String> {
    let parsed = catch_unwind(|| SessionFile::parse(text)).map_err(|_| "the parser panicked".to_owned())?;
    let Ok(file) = parsed else { return Ok(()) };
    let lines: Vec<Line> = file.lines.iter().map(|(_, line)| line.clone()).collect();
    let rendered = SessionFile::render(&lines);
    let again =
        SessionFile::parse(&rendered).map_err(|e| format!("the rendering does not parse ({e}): {rendered:?}"))?;
    if again != file {
        return Err(format!("parse, render, parse differs: {:?} became {:?}", file.lines, again.lines));
    }
    Ok(())
}

#[test]
fn what_parses_renders_back_to_the_same_lines() {
    for text in REGRESSIONS {
        round_trips(text).unwrap_or_else(|why| panic!("{why}\n{text:?}"));
    }
    let (mut rng, seed, cases) = fuzz::run(SEED, CASES);
    let watchdog = fuzz::Watchdog::start("the session file parser", seed, std::time::Duration::from_secs(60));
    for case in 0..cases {
        watchdog.at(case);
        let mut text: String =
            (0..rng.usize(..8)).map(|_| line(&mut rng) + fuzz::pick(&mut rng, &["\n", "\n", "\r\n"])).collect();
        if rng.u8(..4) == 0 {
            text = String::from_utf8_lossy(&fuzz::mutate(&mut rng, text.as_bytes())).into_owned();
        }
        round_trips(&text).unwrap_or_else(|why| panic!("case {case} (seed {seed:#x}): {why}\n{text:?}"));
    }
}
