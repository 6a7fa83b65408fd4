//! REST argument binding: random query strings and path segments against the REST route of the
//! conformance server (`GET /add?a=..&b=..`). Nothing is answered with a 5xx; a well-formed
//! query of two finite numbers is answered with 200.

use std::time::Instant;

use crate::fuzz;
use crate::http::{Reply, send, still_answers};
use crate::process::Served;

const SEED: u64 = 0x005e_ed0f_4e57;
const CASES: usize = 1000;

/// Queries kept because they are the edges of binding.
const REGRESSIONS: &[&str] = &[
    "/add",
    "/add?",
    "/add?a=1",
    "/add?a=1&b=2&a=3",
    "/add?a=1e308&b=1e308",
    "/add?a=NaN&b=1",
    "/add?a=inf&b=-inf",
    "/add?a=%ff&b=1",
    "/add?a=%&b=1",
    "/add?a=1&b=2&c=3",
    "/add?a[]=1&b=2",
    "/add?=&&=",
    "/add/extra?a=1&b=2",
    "/add;a=1",
    "/%61dd?a=1&b=2",
];

fn number(rng: &mut fuzz::Rng) -> String {
    match rng.u8(..4) {
        0 => fuzz::pick(rng, fuzz::ODD_NUMBERS).to_owned(),
        1 => fuzz::percent(fuzz::pick(rng, fuzz::ODD_STRINGS)),
        _ => format!("{}", rng.i32(..)),
    }
}

/// A target, and whether it is a well-formed query of two finite numbers.
fn target(rng: &mut fuzz::Rng) -> (String, bool) {
    if rng.u8(..4) == 0 {
        let (a, b) = (rng.i32(..), rng.f64() * 1e6);
        return (format!("/add?{}", fuzz::pick(rng, &[format!("a={a}&b={b}"), format!("b={b}&a={a}")])), true);
    }
    let path = match rng.u8(..6) {
        0..=3 => "/add".to_owned(),
        4 => format!("/add/{}", fuzz::percent(fuzz::pick(rng, fuzz::ODD_STRINGS))),
        _ => format!("/{}", fuzz::percent(fuzz::pick(rng, fuzz::ODD_STRINGS))),
    };
    let pairs: Vec<String> = (0..rng.usize(..5))
        .map(|_| {
            let name = fuzz::pick(rng, &["a", "b", "a", "b", "c", "", "a[]", "%61"]);
            match rng.u8(..4) {
                0 => name.to_owned(),
                _ => format!("{name}={}", number(rng)),
            }
        })
        .collect();
    let query = pairs.join(fuzz::pick(rng, &["&", "&", "&&", ";"]));
    let target = format!("{path}?{query}");
    // Mutated targets may hold bytes no request line admits: a 400 or a closed connection then.
    let target = if rng.u8(..6) == 0 {
        String::from_utf8_lossy(&fuzz::mutate(rng, target.as_bytes())).into_owned()
    } else {
        target
    };
    (target, false)
}

fn status(addr: &str, target: &str) -> Result<Option<u16>, String> {
    let request = format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    Ok(match send(addr, request.as_bytes(), false)? {
        Reply::Status(status, _) => Some(status),
        Reply::Closed => None,
    })
}

#[test]
fn arbitrary_queries_and_paths_never_get_a_5xx() {
    let mut served = Served::start();
    let addr = served.addr.clone();
    assert_eq!(status(&addr, "/add?a=2&b=40"), Ok(Some(200)));
    let check = |target: &str, well_formed: bool, label: &str| {
        let got = status(&addr, target).unwrap_or_else(|why| panic!("{label}: {why}\n{target}"));
        if well_formed {
            assert_eq!(got, Some(200), "{label}: {target}");
        }
        if let Some(code) = got {
            assert!(code < 500, "{label}: status {code} for {target}");
        }
    };
    for target in REGRESSIONS {
        check(target, false, "a kept query");
    }
    let started = Instant::now();
    let (mut rng, seed, cases) = fuzz::run(SEED, CASES);
    for case in 0..cases {
        let (target, well_formed) = target(&mut rng);
        check(&target, well_formed, &format!("case {case} (seed {seed:#x})"));
        assert!(served.is_running(), "case {case} (seed {seed:#x}) stopped the server: {target}");
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "the run took over a minute");
    }
    still_answers(&addr).unwrap();
}
