//! The pairings a sandbox keeps, as RFC 8628's device flow has them: a client mints one (a
//! pairing code and a device secret it keeps, a user code the developer confirms in the
//! browser) and polls it until the developer approves or denies it there, or it expires. A
//! pairing is told once: the poll that learns its end forgets it, so its code is spent.
//!
//! Every method takes the time it runs at, so that expiry and polling speed are tested without
//! waiting.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::limits::SandboxLimits;
use super::secrets;

/// A pairing as its client is given it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Minted {
    pub pair_code: String,
    pub device_secret: String,
    /// As shown: `XXXX-XXXX`.
    pub user_code: String,
    pub expires_in: Duration,
    pub interval: Duration,
}

/// What a poll learns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Poll {
    /// The developer has not decided yet.
    Pending,
    /// Polled sooner than the interval after the previous poll.
    SlowDown,
    /// Approved: the session's token for the client, and its namespace. Told once.
    Approved { session_token: String, namespace_id: String },
    /// Denied in the browser, or refused after too many wrong user codes. Told once.
    Denied(Denial),
    /// Its time ran out. Told once.
    Expired,
    /// No such pairing (never minted, already told, or a wrong device secret).
    Unknown,
}

/// Why a pairing was denied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denial {
    /// The developer clicked Deny.
    ByDeveloper,
    /// `max_wrong_codes` wrong user codes were tried while it waited.
    TooManyWrongCodes,
}

/// Why a user code typed in the browser does not lead to a waiting pairing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not 8 characters of the code's alphabet.
    Malformed,
    /// No pairing has it (counted as a wrong code against every waiting pairing).
    Wrong,
    /// Its pairing expired.
    Expired,
    /// Its pairing was already approved or denied.
    Decided,
}

/// The store is full of waiting pairings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full;

#[derive(Debug)]
struct Pairing {
    device_secret: [u8; 32],
    /// Normalized: the 8 characters without the dash.
    user_code: String,
    minted: Instant,
    expires_at: Instant,
    last_poll: Option<Instant>,
    wrong_codes: u32,
    state: State,
}

#[derive(Debug)]
enum State {
    Waiting,
    Approved { session_token: String, namespace_id: String },
    Denied(Denial),
}

#[derive(Debug)]
pub struct Pairings {
    by_code: HashMap<String, Pairing>,
    /// Normalized user code to pairing code, for the pairings still waiting or decided.
    by_user_code: HashMap<String, String>,
    ttl: Duration,
    interval: Duration,
    max: usize,
    max_wrong_codes: u32,
}

impl Pairings {
    pub fn new(limits: &SandboxLimits) -> Pairings {
        Pairings {
            by_code: HashMap::new(),
            by_user_code: HashMap::new(),
            ttl: limits.pairing_ttl(),
            interval: limits.pairing_interval(),
            max: limits.max_pairings.max(1),
            max_wrong_codes: limits.max_wrong_codes.max(1),
        }
    }

    /// A new pairing, or `Full` when `max_pairings` wait already. Pairings that have ended and
    /// were never told make room first, oldest first.
    pub fn mint(&mut self, now: Instant) -> Result<Minted, Full> {
        self.sweep(now);
        if self.by_code.len() >= self.max {
            let ended = self
                .by_code
                .iter()
                .filter(|(_, p)| !p.waiting(now))
                .min_by_key(|(_, p)| p.minted)
                .map(|(code, _)| code.clone());
            self.forget(&ended.ok_or(Full)?);
        }
        let user_code = loop {
            let shown = secrets::user_code();
            if !self.by_user_code.contains_key(&shown.replace('-', "")) {
                break shown;
            }
        };
        let (pair_code, device_secret) = (secrets::pairing_secret(), secrets::pairing_secret());
        let pairing = Pairing {
            device_secret: secrets::digest(&device_secret),
            user_code: user_code.replace('-', ""),
            minted: now,
            expires_at: now + self.ttl,
            last_poll: None,
            wrong_codes: 0,
            state: State::Waiting,
        };
        self.by_user_code.insert(pairing.user_code.clone(), pair_code.clone());
        self.by_code.insert(pair_code.clone(), pairing);
        Ok(Minted { pair_code, device_secret, user_code, expires_in: self.ttl, interval: self.interval })
    }

    /// The client's poll. A poll sooner than the interval after the previous one is `SlowDown`
    /// (and counts as the previous one); the end of a pairing is told once.
    pub fn poll(&mut self, pair_code: &str, device_secret: &str, now: Instant) -> Poll {
        let Some(pairing) = self.by_code.get_mut(pair_code) else { return Poll::Unknown };
        if !secrets::same_digest(&pairing.device_secret, &secrets::digest(device_secret)) {
            return Poll::Unknown;
        }
        let answer = match &pairing.state {
            State::Waiting if now >= pairing.expires_at => Poll::Expired,
            State::Waiting => {
                let too_soon =
                    pairing.last_poll.is_some_and(|last| now.saturating_duration_since(last) < self.interval);
                pairing.last_poll = Some(now);
                return if too_soon { Poll::SlowDown } else { Poll::Pending };
            }
            State::Approved { session_token, namespace_id } => {
                Poll::Approved { session_token: session_token.clone(), namespace_id: namespace_id.clone() }
            }
            State::Denied(denial) => Poll::Denied(*denial),
        };
        self.forget(pair_code);
        answer
    }

    /// The waiting pairing whose user code the developer typed, by its pairing code. A wrong
    /// code counts against every waiting pairing, and one that has seen `max_wrong_codes` of
    /// them is denied: guessing a code has at most that many tries per pairing.
    pub fn waiting(&mut self, typed: &str, now: Instant) -> Result<String, Refusal> {
        let user_code = secrets::normalize_user_code(typed).ok_or(Refusal::Malformed)?;
        let found = self.by_user_code.get(&user_code).and_then(|code| Some((code, self.by_code.get(code)?)));
        match found {
            Some((code, pairing)) => match pairing.state {
                State::Waiting if now >= pairing.expires_at => Err(Refusal::Expired),
                State::Waiting => Ok(code.clone()),
                _ => Err(Refusal::Decided),
            },
            None => {
                for pairing in self.by_code.values_mut().filter(|p| p.waiting(now)) {
                    pairing.wrong_codes += 1;
                    if pairing.wrong_codes >= self.max_wrong_codes {
                        pairing.state = State::Denied(Denial::TooManyWrongCodes);
                    }
                }
                Err(Refusal::Wrong)
            }
        }
    }

    /// Approves the waiting pairing `pair_code` (found by [`waiting`](Pairings::waiting)): its
    /// next poll is given the session.
    pub fn approve(&mut self, pair_code: &str, session_token: String, namespace_id: String) {
        if let Some(pairing) = self.by_code.get_mut(pair_code) {
            pairing.state = State::Approved { session_token, namespace_id };
        }
    }

    /// Denies the waiting pairing `pair_code`.
    pub fn deny(&mut self, pair_code: &str) {
        if let Some(pairing) = self.by_code.get_mut(pair_code) {
            pairing.state = State::Denied(Denial::ByDeveloper);
        }
    }

    /// Forgets pairings that ended a whole time-to-live ago without being told.
    fn sweep(&mut self, now: Instant) {
        let stale: Vec<String> =
            self.by_code.iter().filter(|(_, p)| now >= p.expires_at + self.ttl).map(|(code, _)| code.clone()).collect();
        stale.iter().for_each(|code| self.forget(code));
    }

    fn forget(&mut self, pair_code: &str) {
        if let Some(pairing) = self.by_code.remove(pair_code) {
            self.by_user_code.remove(&pairing.user_code);
        }
    }
}

impl Pairing {
    fn waiting(&self, now: Instant) -> bool {
        matches!(self.state, State::Waiting) && now < self.expires_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairings(max: usize) -> Pairings {
        Pairings::new(&SandboxLimits { max_pairings: max, max_wrong_codes: 3, ..SandboxLimits::DEFAULT })
    }

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    #[test]
    fn a_minted_pairing_waits_then_is_approved_once() {
        let (mut p, t0) = (pairings(10), Instant::now());
        let m = p.mint(t0).unwrap();
        assert_eq!((m.expires_in, m.interval), (secs(600), secs(5)));
        assert_eq!(p.poll(&m.pair_code, &m.device_secret, t0), Poll::Pending);
        assert_eq!(p.poll(&m.pair_code, &m.device_secret, t0 + secs(1)), Poll::SlowDown);
        assert_eq!(p.poll(&m.pair_code, &m.device_secret, t0 + secs(6)), Poll::Pending, "5 s after the slowed poll");
        let code = p.waiting(&m.user_code.to_lowercase(), t0 + secs(7)).unwrap();
        assert_eq!(code, m.pair_code);
        p.approve(&code, "tok".into(), "s1".into());
        let approved = Poll::Approved { session_token: "tok".into(), namespace_id: "s1".into() };
        assert_eq!(p.poll(&m.pair_code, &m.device_secret, t0 + secs(8)), approved, "an answer is no poll too soon");
        assert_eq!(p.poll(&m.pair_code, &m.device_secret, t0 + secs(20)), Poll::Unknown, "a spent code");
        assert_eq!(p.waiting(&m.user_code, t0 + secs(21)), Err(Refusal::Wrong), "its user code is gone too");
        assert!(p.by_code.is_empty() && p.by_user_code.is_empty());
    }

    #[test]
    fn a_wrong_device_secret_learns_nothing_and_changes_nothing() {
        let (mut p, t0) = (pairings(10), Instant::now());
        let m = p.mint(t0).unwrap();
        assert_eq!(p.poll(&m.pair_code, "guess", t0), Poll::Unknown);
        assert_eq!(p.poll("nope", &m.device_secret, t0), Poll::Unknown);
        assert_eq!(p.poll(&m.pair_code, &m.device_secret, t0), Poll::Pending, "not slowed by the wrong polls");
    }

    #[test]
    fn a_denied_or_expired_pairing_is_told_once() {
        let (mut p, t0) = (pairings(10), Instant::now());
        let denied = p.mint(t0).unwrap();
        let code = p.waiting(&denied.user_code, t0).unwrap();
        p.deny(&code);
        assert_eq!(p.waiting(&denied.user_code, t0), Err(Refusal::Decided));
        assert_eq!(p.poll(&denied.pair_code, &denied.device_secret, t0), Poll::Denied(Denial::ByDeveloper));
        assert_eq!(p.poll(&denied.pair_code, &denied.device_secret, t0), Poll::Unknown);

        let late = p.mint(t0).unwrap();
        assert_eq!(p.waiting(&late.user_code, t0 + secs(600)), Err(Refusal::Expired));
        assert_eq!(p.poll(&late.pair_code, &late.device_secret, t0 + secs(600)), Poll::Expired);
        assert_eq!(p.poll(&late.pair_code, &late.device_secret, t0 + secs(601)), Poll::Unknown);
    }

    #[test]
    fn wrong_codes_are_capped_per_waiting_pairing() {
        let (mut p, t0) = (pairings(10), Instant::now());
        let m = p.mint(t0).unwrap();
        let wrong = if m.user_code == "BBBB-BBBB" { "CCCC-CCCC" } else { "BBBB-BBBB" };
        assert_eq!(p.waiting("not a code", t0), Err(Refusal::Malformed), "a malformed code is no guess");
        assert_eq!(p.waiting(wrong, t0), Err(Refusal::Wrong));
        assert_eq!(p.waiting(wrong, t0), Err(Refusal::Wrong));
        assert!(p.waiting(&m.user_code, t0).is_ok(), "two wrong codes of three allowed");
        assert_eq!(p.waiting(wrong, t0), Err(Refusal::Wrong));
        assert_eq!(p.waiting(&m.user_code, t0), Err(Refusal::Decided), "the third wrong code denied it");
        assert_eq!(p.poll(&m.pair_code, &m.device_secret, t0), Poll::Denied(Denial::TooManyWrongCodes));
        // A pairing minted later counts only the wrong codes tried while it waits.
        let fresh = p.mint(t0).unwrap();
        assert!(p.waiting(&fresh.user_code, t0).is_ok());
    }

    #[test]
    fn pairings_are_bounded_and_ended_ones_make_room() {
        let (mut p, t0) = (pairings(2), Instant::now());
        let a = p.mint(t0).unwrap();
        let b = p.mint(t0 + secs(1)).unwrap();
        assert_eq!(p.mint(t0 + secs(2)), Err(Full), "two wait");
        assert!(p.mint(t0 + secs(600)).is_ok(), "the first expired untold: it makes room");
        assert_eq!(p.by_code.len(), 2);
        assert_eq!(p.poll(&a.pair_code, &a.device_secret, t0 + secs(600)), Poll::Unknown);
        assert!(p.mint(t0 + secs(1_202)).is_ok());
        assert_eq!(
            p.poll(&b.pair_code, &b.device_secret, t0 + secs(1_202)),
            Poll::Unknown,
            "ended a lifetime ago: swept"
        );
        assert_eq!(p.by_code.len(), 2);
    }
}
