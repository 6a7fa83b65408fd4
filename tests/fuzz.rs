//! The random inputs every fuzz target draws from, included by each target with
//! `#[path = ".../tests/fuzz.rs"] mod fuzz;`: a seeded generator and near-valid inputs made by
//! mutating valid ones (truncation, byte flips, deep nesting, huge numbers, odd unicode, BOMs,
//! NULs, duplicate keys, wrong types).
//!
//! The seed is fixed, so a failure shows again on the next run; `FUZZ_SEED` (decimal or `0x` hex)
//! and `FUZZ_CASES` change it and the number of cases, for longer runs by hand. Every failure
//! message names the seed and the case.

// Each target uses a part of what is here.
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

pub use fastrand::Rng;

/// The generator and case count of one run: `FUZZ_SEED` and `FUZZ_CASES` when set, else these.
pub fn run(default_seed: u64, default_cases: usize) -> (Rng, u64, usize) {
    let seed = std::env::var("FUZZ_SEED").ok().map_or(default_seed, |text| {
        let parsed = match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => text.parse(),
        };
        parsed.unwrap_or_else(|_| panic!("FUZZ_SEED={text:?} is not a number"))
    });
    let cases = std::env::var("FUZZ_CASES")
        .ok()
        .map_or(default_cases, |text| text.parse().unwrap_or_else(|_| panic!("FUZZ_CASES={text:?} is not a number")));
    (Rng::with_seed(seed), seed, cases)
}

/// Ends the test process, naming the case, when a run outlasts its limit: a call that hangs then
/// fails the test instead of stalling CI. Dropping it ends the watch.
pub struct Watchdog {
    case: Arc<AtomicUsize>,
    done: Arc<AtomicBool>,
}

impl Watchdog {
    pub fn start(target: &'static str, seed: u64, limit: Duration) -> Self {
        let (case, done) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
        let (at, finished) = (Arc::clone(&case), Arc::clone(&done));
        let started = Instant::now();
        std::thread::spawn(move || {
            while !finished.load(Ordering::Relaxed) {
                if started.elapsed() > limit {
                    let case = at.load(Ordering::Relaxed);
                    eprintln!("{target}: case {case} (seed {seed:#x}) took the run past {limit:?}");
                    std::process::exit(101);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        Watchdog { case, done }
    }

    /// Records the case now running, for the message.
    pub fn at(&self, case: usize) {
        self.case.store(case, Ordering::Relaxed);
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
    }
}

/// One of `items`, which must not be empty.
pub fn pick<T: Clone>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.usize(..items.len())].clone()
}

/// Strings a parser may stumble on: empty, odd unicode, escapes, control characters.
pub const ODD_STRINGS: &[&str] = &[
    "",
    " ",
    "\u{0}",
    "\u{feff}",
    "\u{202e}",
    "\u{fffd}",
    "\u{10ffff}",
    "é",
    "😀",
    "\\",
    "\"",
    "\r",
    "\t",
    "%00",
    "%ff",
    "%",
    "../..",
    "a/b",
    "?",
    "#",
    "&",
    "=",
    "null",
    "true",
    "-1",
    "1e400",
    "18446744073709551616",
];

/// Numbers at and past the edges of what JSON readers hold.
pub const ODD_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-1",
    "1.5",
    "9007199254740993",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "1e308",
    "1e400",
    "-1e400",
    "1e-400",
    "0.1000000000000000055511151231257827",
    "123456789012345678901234567890",
];

/// A JSON value of any type, nested at most `depth` deep, from odd strings and numbers.
pub fn value(rng: &mut Rng, depth: usize) -> Value {
    match rng.usize(..if depth == 0 { 5 } else { 7 }) {
        0 => Value::Null,
        1 => json!(rng.bool()),
        2 => serde_json::from_str(pick(rng, ODD_NUMBERS)).unwrap_or(json!(0)),
        3 | 4 => json!(pick(rng, ODD_STRINGS)),
        5 => Value::Array((0..rng.usize(..4)).map(|_| value(rng, depth - 1)).collect()),
        _ => {
            let mut map = Map::new();
            for _ in 0..rng.usize(..4) {
                map.insert(pick(rng, ODD_STRINGS).to_owned(), value(rng, depth - 1));
            }
            Value::Object(map)
        }
    }
}

/// `valid` changed in one to three ways; now and then left as it is.
pub fn mutate(rng: &mut Rng, valid: &[u8]) -> Vec<u8> {
    let mut bytes = valid.to_vec();
    for _ in 0..1 + rng.usize(..3) {
        mutate_once(rng, &mut bytes);
    }
    bytes
}

fn mutate_once(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let at = rng.usize(..=bytes.len());
    match rng.u8(..12) {
        0 => bytes.truncate(at),
        1 if !bytes.is_empty() => {
            let i = rng.usize(..bytes.len());
            bytes[i] ^= 1 << rng.u8(..8);
        }
        2 => splice(bytes, at, pick(rng, &["\u{feff}", "\0", "\r", "\u{2028}", "\u{85}", "😀", "\\u0000"]).as_bytes()),
        3 => splice(bytes, at, &[[0xff, 0xfe, 0xc3, 0x28, 0x80, 0xed, 0xa0, 0x80][rng.usize(..8)]]),
        4 => {
            let depth = [10, 127, 128, 129, 1000, 20_000][rng.usize(..6)];
            let (open, close) = if rng.bool() { ("[", "]") } else { ("{\"a\":", "}") };
            let nested = format!("{}1{}", open.repeat(depth), close.repeat(depth));
            replace_value(rng, bytes, nested.as_bytes());
        }
        5 => {
            let number = pick(rng, ODD_NUMBERS);
            replace_value(rng, bytes, number.as_bytes());
        }
        6 => {
            let wrong = value(rng, 2).to_string();
            replace_value(rng, bytes, wrong.as_bytes());
        }
        7 => {
            // A duplicate key: the object's first key again, with another value.
            if let Some(open) = bytes.iter().position(|&b| b == b'{') {
                let pair =
                    format!("\"{}\":{},", pick(rng, &["id", "method", "params", "jsonrpc", "name"]), value(rng, 1));
                splice(bytes, open + 1, pair.as_bytes());
            }
        }
        8 if !bytes.is_empty() => {
            // A slice of the input repeated.
            let from = rng.usize(..bytes.len());
            let to = rng.usize(from..=bytes.len().min(from + 64));
            let copy = bytes[from..to].repeat(1 + rng.usize(..50));
            splice(bytes, at, &copy);
        }
        9 => splice(bytes, at, pick(rng, &[",", ":", "\"", "}", "]", "{", "[", " ", "\n", "\r\n"]).as_bytes()),
        10 => bytes.splice(0..0, "\u{feff}".bytes()).for_each(drop),
        _ => {
            let odd = serde_json::to_string(pick(rng, ODD_STRINGS)).expect("a string serializes");
            replace_value(rng, bytes, odd.as_bytes());
        }
    }
}

fn splice(bytes: &mut Vec<u8>, at: usize, insert: &[u8]) {
    bytes.splice(at..at, insert.iter().copied()).for_each(drop);
}

/// Replaces what follows one `:` (up to the next `,` or `}`) with `new`, or appends it when the
/// input has no `:`.
fn replace_value(rng: &mut Rng, bytes: &mut Vec<u8>, new: &[u8]) {
    let colons: Vec<usize> = bytes.iter().enumerate().filter(|(_, b)| **b == b':').map(|(i, _)| i + 1).collect();
    if colons.is_empty() {
        bytes.extend_from_slice(new);
        return;
    }
    let start = colons[rng.usize(..colons.len())];
    let end = bytes[start..].iter().position(|&b| b == b',' || b == b'}').map_or(bytes.len(), |n| start + n);
    bytes.splice(start..end, new.iter().copied()).for_each(drop);
}

/// `text` percent-encoded byte by byte, as a browser sends it in a path or a query.
pub fn percent(text: &str) -> String {
    text.bytes()
        .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

/// Random bytes, up to `max` of them.
pub fn bytes(rng: &mut Rng, max: usize) -> Vec<u8> {
    (0..rng.usize(..=max)).map(|_| rng.u8(..)).collect()
}
