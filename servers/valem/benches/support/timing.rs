//! Timing for the benchmarks: a warm-up, then rounds of a fixed number of runs; the fastest
//! round's mean is reported (the least disturbed by the rest of the machine).

use std::time::{Duration, Instant};

const ROUNDS: usize = 5;

/// The mean time of one run of `f`, from the fastest of several rounds of `runs` runs.
pub fn mean_of(runs: usize, mut f: impl FnMut()) -> Duration {
    for _ in 0..runs.div_ceil(10) {
        f();
    }
    (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..runs {
                f();
            }
            start.elapsed() / runs as u32
        })
        .min()
        .unwrap_or_default()
}

/// `12.3 µs`, `1.45 ms`.
pub fn show(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros < 1000.0 { format!("{micros:.1} µs") } else { format!("{:.2} ms", micros / 1000.0) }
}
