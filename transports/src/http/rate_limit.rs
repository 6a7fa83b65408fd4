//! `serve --rate-limit N/s`: a token bucket per caller, its principal when the request names
//! one, else its client address. Past it, REST requests and `/mcp` POSTs are answered 429 with
//! `Retry-After`; stdio has no such limit.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hyper::StatusCode;
use hyper::header::{HeaderValue, RETRY_AFTER};

use super::InvalidSetting;
use super::body::{self, HttpResponse};

/// Callers followed at once; past it, those whose bucket is full again are forgotten (at most
/// once a second), and while none is, a new caller is refused for a second.
pub(crate) const MAX_CALLERS: usize = 65_536;

/// How many requests one caller may make per second, in bursts of as many: `N/s`.
///
/// ```
/// use tooltable_transports::http::RateLimit;
///
/// let limit: RateLimit = "20/s".parse().unwrap();
/// assert_eq!((limit.per_second(), limit.to_string()), (20, "20/s".to_owned()));
/// assert!("0/s".parse::<RateLimit>().is_err() && "20/min".parse::<RateLimit>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit(NonZeroU32);

impl RateLimit {
    /// `per_second` requests a second.
    pub const fn new(per_second: NonZeroU32) -> Self {
        RateLimit(per_second)
    }

    /// Requests a second, and the largest burst.
    pub fn per_second(self) -> u32 {
        self.0.get()
    }
}

impl std::fmt::Display for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/s", self.0)
    }
}

impl std::str::FromStr for RateLimit {
    type Err = InvalidSetting;

    fn from_str(text: &str) -> Result<Self, InvalidSetting> {
        text.strip_suffix("/s").and_then(|n| n.parse::<NonZeroU32>().ok()).map(RateLimit).ok_or_else(|| {
            InvalidSetting::new("rate limit", text, "is not N/s, N a whole number of requests a second from 1 up")
        })
    }
}

/// Who a request's tokens are taken from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Caller {
    Principal(String),
    Address(IpAddr),
}

/// The buckets of every caller seen lately.
pub(crate) struct RateLimiter {
    limit: RateLimit,
    buckets: Mutex<Buckets>,
}

struct Buckets {
    by_caller: HashMap<Caller, Bucket>,
    last_sweep: Option<Instant>,
}

/// The tokens a caller has, as of `at`.
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl RateLimiter {
    pub(crate) fn new(limit: RateLimit) -> Self {
        RateLimiter { limit, buckets: Mutex::new(Buckets { by_caller: HashMap::new(), last_sweep: None }) }
    }

    /// Takes a token of `caller`'s at `now`; when it has none, how long until it has one.
    pub(crate) fn take(&self, caller: Caller, now: Instant) -> Result<(), Duration> {
        let rate = f64::from(self.limit.per_second());
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let refilled = |bucket: &Bucket| (bucket.tokens + now.duration_since(bucket.at).as_secs_f64() * rate).min(rate);
        if !buckets.by_caller.contains_key(&caller) && buckets.by_caller.len() >= MAX_CALLERS {
            let swept_lately = buckets.last_sweep.is_some_and(|at| now.duration_since(at) < Duration::from_secs(1));
            if !swept_lately {
                buckets.last_sweep = Some(now);
                buckets.by_caller.retain(|_, bucket| refilled(bucket) < rate);
            }
            if buckets.by_caller.len() >= MAX_CALLERS {
                return Err(Duration::from_secs(1));
            }
        }
        let bucket = buckets.by_caller.entry(caller).or_insert(Bucket { tokens: rate, at: now });
        let tokens = refilled(bucket);
        *bucket = Bucket { tokens, at: now };
        if tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - tokens) / rate))
        }
    }

    /// The 429 of a request `wait` too early: `Retry-After` in whole seconds, at least one.
    pub(crate) fn refusal(&self, wait: Duration) -> HttpResponse {
        let mut response = body::json(
            StatusCode::TOO_MANY_REQUESTS,
            &serde_json::json!({ "error": "Rate limit exceeded", "limitPerSecond": self.limit.per_second() }),
        );
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        response.headers_mut().insert(RETRY_AFTER, HeaderValue::from(seconds.max(1)));
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(per_second: u32) -> RateLimiter {
        RateLimiter::new(RateLimit::new(NonZeroU32::new(per_second).unwrap()))
    }

    fn address(last: u8) -> Caller {
        Caller::Address(IpAddr::from([10, 0, 0, last]))
    }

    #[test]
    fn a_caller_has_a_burst_of_n_then_n_a_second() {
        let limiter = limiter(4);
        let start = Instant::now();
        for _ in 0..4 {
            assert_eq!(limiter.take(address(1), start), Ok(()));
        }
        assert_eq!(limiter.take(address(1), start), Err(Duration::from_millis(250)));
        assert_eq!(limiter.take(address(2), start), Ok(()), "another caller has a bucket of its own");
        let later = start + Duration::from_millis(250);
        assert_eq!(limiter.take(address(1), later), Ok(()), "a token a quarter of a second");
        assert!(limiter.take(address(1), later).is_err());
        let much_later = start + Duration::from_secs(60);
        for _ in 0..4 {
            assert_eq!(limiter.take(address(1), much_later), Ok(()), "refilled to the burst, not past it");
        }
        assert!(limiter.take(address(1), much_later).is_err());
    }

    #[test]
    fn a_principal_is_one_caller_from_any_address() {
        let limiter = limiter(1);
        let now = Instant::now();
        assert_eq!(limiter.take(Caller::Principal("ada".into()), now), Ok(()));
        assert!(limiter.take(Caller::Principal("ada".into()), now).is_err());
        assert_eq!(limiter.take(Caller::Principal("grace".into()), now), Ok(()));
    }

    #[test]
    fn the_callers_followed_are_bounded_and_forgotten_once_refilled() {
        let limiter = limiter(1);
        let start = Instant::now();
        let many = |n: usize| Caller::Principal(format!("caller-{n}"));
        for n in 0..MAX_CALLERS {
            assert_eq!(limiter.take(many(n), start), Ok(()));
        }
        assert_eq!(limiter.take(many(MAX_CALLERS), start), Err(Duration::from_secs(1)), "full, none refilled");
        assert!(limiter.take(many(0), start).is_err(), "a caller followed is still limited");
        let later = start + Duration::from_secs(2);
        assert_eq!(limiter.take(many(MAX_CALLERS), later), Ok(()), "the refilled ones make room");
        assert_eq!(limiter.buckets.lock().unwrap().by_caller.len(), 1);
    }

    #[test]
    fn the_refusal_says_when_to_retry_in_whole_seconds() {
        let limiter = limiter(3);
        let refusal = limiter.refusal(Duration::from_millis(1_200));
        assert_eq!(refusal.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refusal.headers()[RETRY_AFTER], "2");
        assert_eq!(limiter.refusal(Duration::from_millis(10)).headers()[RETRY_AFTER], "1");
    }
}
