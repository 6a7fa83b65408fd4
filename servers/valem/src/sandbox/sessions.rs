//! Sandbox sessions: one per approved pairing, each with its own namespace of models and two
//! credentials, the agent's token (sent as `X-Session-Token`) and the browser's (its cookie),
//! 256 random bits each and kept only as their SHA-256 digests. A session that neither
//! presents for `--sandbox-session-idle-secs` ends; at most `--max-sandbox-sessions` live.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::limits::SandboxLimits;
use super::secrets;

/// Who presented a credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// The paired agent, by `X-Session-Token`.
    Agent,
    /// The developer's browser, by its cookie.
    Browser,
}

/// A session as its holders are given it: the only time its tokens exist in clear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    pub namespace_id: String,
    pub agent_token: String,
    pub browser_token: String,
}

/// Too many sessions live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full;

#[derive(Debug)]
struct Session {
    agent: [u8; 32],
    browser: [u8; 32],
    last_used: Instant,
}

#[derive(Debug)]
pub struct Sessions {
    /// A credential's digest to its session's namespace and holder.
    by_digest: HashMap<[u8; 32], (String, Holder)>,
    by_namespace: HashMap<String, Session>,
    idle: Duration,
    max: usize,
}

impl Sessions {
    pub fn new(limits: &SandboxLimits) -> Sessions {
        Sessions {
            by_digest: HashMap::new(),
            by_namespace: HashMap::new(),
            idle: limits.session_idle(),
            max: limits.max_sandbox_sessions.max(1),
        }
    }

    /// A new session with a namespace of its own; `Full` when `max` live (end the idle ones
    /// first with [`end_idle`](Sessions::end_idle), whose namespaces' models go with them).
    pub fn open(&mut self, now: Instant) -> Result<Opened, Full> {
        if self.by_namespace.len() >= self.max {
            return Err(Full);
        }
        let namespace_id = loop {
            let id = secrets::namespace_id();
            if !self.by_namespace.contains_key(&id) {
                break id;
            }
        };
        let opened = Opened { namespace_id, agent_token: secrets::token(), browser_token: secrets::token() };
        let session = Session {
            agent: secrets::digest(&opened.agent_token),
            browser: secrets::digest(&opened.browser_token),
            last_used: now,
        };
        self.by_digest.insert(session.agent, (opened.namespace_id.clone(), Holder::Agent));
        self.by_digest.insert(session.browser, (opened.namespace_id.clone(), Holder::Browser));
        self.by_namespace.insert(opened.namespace_id.clone(), session);
        Ok(opened)
    }

    /// The namespace of the live session `token` belongs to, and who holds it; the session's
    /// idle time starts again. `None` for no session, or one idle too long (which ends).
    pub fn authenticate(&mut self, token: &str, now: Instant) -> Option<(String, Holder)> {
        let (namespace, holder) = self.by_digest.get(&secrets::digest(token)).cloned()?;
        match self.by_namespace.get_mut(&namespace) {
            Some(session) if now.saturating_duration_since(session.last_used) < self.idle => {
                session.last_used = now;
                Some((namespace, holder))
            }
            _ => {
                self.end(&namespace);
                None
            }
        }
    }

    /// Whether the session of `namespace` still lives (without using it).
    pub fn alive(&self, namespace: &str, now: Instant) -> bool {
        self.by_namespace.get(namespace).is_some_and(|s| now.saturating_duration_since(s.last_used) < self.idle)
    }

    /// Ends every session idle too long, and gives their namespaces (whose models go with them).
    pub fn end_idle(&mut self, now: Instant) -> Vec<String> {
        let idle: Vec<String> = self
            .by_namespace
            .iter()
            .filter(|(_, s)| now.saturating_duration_since(s.last_used) >= self.idle)
            .map(|(ns, _)| ns.clone())
            .collect();
        idle.iter().for_each(|ns| self.end(ns));
        idle
    }

    fn end(&mut self, namespace: &str) {
        if let Some(session) = self.by_namespace.remove(namespace) {
            self.by_digest.remove(&session.agent);
            self.by_digest.remove(&session.browser);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sessions(max: usize) -> Sessions {
        Sessions::new(&SandboxLimits {
            max_sandbox_sessions: max,
            sandbox_session_idle_secs: 60,
            ..SandboxLimits::DEFAULT
        })
    }

    #[test]
    fn each_credential_opens_its_own_namespace_only() {
        let (mut s, t0) = (sessions(10), Instant::now());
        let a = s.open(t0).unwrap();
        let b = s.open(t0).unwrap();
        assert_ne!(a.namespace_id, b.namespace_id);
        assert_ne!(a.agent_token, a.browser_token);
        assert_eq!(s.authenticate(&a.agent_token, t0), Some((a.namespace_id.clone(), Holder::Agent)));
        assert_eq!(s.authenticate(&a.browser_token, t0), Some((a.namespace_id.clone(), Holder::Browser)));
        assert_eq!(s.authenticate(&b.agent_token, t0), Some((b.namespace_id.clone(), Holder::Agent)));
        assert_eq!(s.authenticate("made-up", t0), None);
    }

    #[test]
    fn tokens_are_kept_as_digests_only() {
        let (mut s, t0) = (sessions(10), Instant::now());
        let a = s.open(t0).unwrap();
        let kept = format!("{s:?}");
        assert!(!kept.contains(&a.agent_token) && !kept.contains(&a.browser_token), "{kept}");
    }

    #[test]
    fn a_session_ends_after_its_idle_time_and_use_keeps_it() {
        let (mut s, t0) = (sessions(10), Instant::now());
        let a = s.open(t0).unwrap();
        let used = t0 + Duration::from_secs(59);
        assert!(s.authenticate(&a.browser_token, used).is_some());
        assert!(s.alive(&a.namespace_id, used + Duration::from_secs(59)));
        assert!(s.authenticate(&a.agent_token, used + Duration::from_secs(60)).is_none(), "idle 60 s");
        assert!(!s.alive(&a.namespace_id, used));
        assert!(s.authenticate(&a.browser_token, used).is_none(), "both credentials end with it");
        assert!(s.by_namespace.is_empty() && s.by_digest.is_empty());
    }

    #[test]
    fn sessions_are_bounded_and_idle_ones_make_room() {
        let (mut s, t0) = (sessions(2), Instant::now());
        let first = s.open(t0).unwrap();
        s.open(t0 + Duration::from_secs(30)).unwrap();
        assert_eq!(s.open(t0 + Duration::from_secs(31)), Err(Full));
        assert_eq!(s.end_idle(t0 + Duration::from_secs(60)), [first.namespace_id], "the first went idle");
        assert!(s.open(t0 + Duration::from_secs(60)).is_ok());
        assert!(s.authenticate(&first.agent_token, t0 + Duration::from_secs(60)).is_none());
        assert_eq!(s.end_idle(t0 + Duration::from_secs(90)).len(), 1);
        assert_eq!(s.by_namespace.len(), 1);
    }
}
