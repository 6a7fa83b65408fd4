//! The session file parser under arbitrary text: lines of every kind it reads (comments, blank
//! lines, sent and received messages, compact or pretty-printed over several lines), mutated by
//! the shared generator, and kept regression texts. Parsing never panics, and for what parses,
//! rendering and parsing again gives the same entries, whose rendering is the same text.

use std::panic::catch_unwind;

use serde_json::{Value, json};
use tooltable_golden::session::render::WIDTH;
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
    "→ {\n}\n",
    "→ {\"a\":\n  [1,\n  2]}\n# after\n",
    "→ {\"a\": 1}\r\n← [\r\n  2\r\n]\r\n",
    "→ \"a\\u2028b\" \n",
    "→ {\"a\": 1} # not a comment\n",
    "→ {\"a\": [\n",
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
        6 => {
            let value = fuzz::value(rng, 4);
            let pretty = serde_json::to_string_pretty(&value).unwrap_or_default();
            format!("{}{pretty}", fuzz::pick(rng, &[SENT, RECEIVED]))
        }
        _ => format!("{}{SENT}{}", fuzz::pick(rng, &["", " ", "\t", "\r"]), fuzz::value(rng, 2)),
    }
}

/// What follows `"key": ` on a line of an object's members, or the line.
fn after_key(line: &str) -> &str {
    let mut key = serde_json::Deserializer::from_str(line).into_iter::<String>();
    match key.next() {
        Some(Ok(_)) => line[key.byte_offset()..].strip_prefix(": ").unwrap_or(line),
        _ => line,
    }
}

fn entries(file: &SessionFile) -> Vec<Line> {
    file.lines.iter().map(|(_, line)| line.clone()).collect()
}

/// Parses `text` and, when it parses, checks the round trip; a panic or a difference is the failure.
fn round_trips(text: &str) -> Result<(), String> {
    let parsed = catch_unwind(|| SessionFile::parse(text)).map_err(|_| "the parser panicked".to_owned())?;
    let Ok(file) = parsed else { return Ok(()) };
    let rendered = SessionFile::render(&entries(&file));
    let again =
        SessionFile::parse(&rendered).map_err(|e| format!("the rendering does not parse ({e}): {rendered:?}"))?;
    if entries(&again) != entries(&file) {
        return Err(format!("parse, render, parse differs: {:?} became {:?}", file.lines, again.lines));
    }
    if SessionFile::render(&entries(&again)) != rendered {
        return Err(format!("rendering what a rendering parses to changes it: {rendered:?}"));
    }
    // Past the width, a line holds nothing that could be broken: no container on one line but
    // an empty one.
    for line in rendered.lines() {
        let body = line.trim_start();
        if line.chars().count() <= WIDTH || body.is_empty() || body.starts_with('#') {
            continue;
        }
        let body = body.strip_prefix(SENT).or_else(|| body.strip_prefix(RECEIVED)).unwrap_or(body);
        let value = after_key(body.trim_end_matches(','));
        let unbreakable = matches!(value, "{" | "[" | "}" | "]")
            || serde_json::from_str::<Value>(value).is_ok_and(|v| match v {
                Value::Array(items) => items.is_empty(),
                Value::Object(map) => map.is_empty(),
                _ => true,
            });
        if !unbreakable {
            return Err(format!("a line past {WIDTH} columns could be broken: {line:?}"));
        }
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
