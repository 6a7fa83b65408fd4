//! Origin and Host checks against DNS rebinding: a browser page on another site must not reach a
//! server listening on this machine.

use hyper::HeaderMap;
use hyper::header::{HOST, ORIGIN};

/// Which origins and hosts may reach the server: the lists of [`HttpOptions`](super::HttpOptions),
/// each besides the localhost ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct AccessPolicy<'a> {
    pub(crate) allowed_origins: &'a [String],
    pub(crate) allowed_hosts: &'a [String],
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    Origin(String),
    Host(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Origin(o) => write!(f, "origin {o:?} is not allowed"),
            Refusal::Host(h) => write!(f, "host {h:?} is not allowed"),
        }
    }
}

impl AccessPolicy<'_> {
    /// Checks the request's `Host` and, when present, its `Origin`.
    /// Every value counts: a second `Host` or `Origin` header cannot smuggle another site in.
    /// A refused `Host` is reported before a refused `Origin`.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        // One pass over the few headers, each name compared as it is: cheaper than looking both
        // names up.
        let mut refused_origin = None;
        for (name, value) in headers {
            if *name == HOST {
                self.check_host(value.to_str().unwrap_or(""))?;
            } else if *name == ORIGIN && refused_origin.is_none() {
                refused_origin = self.check_origin(value.to_str().unwrap_or("")).err();
            }
        }
        refused_origin.map_or(Ok(()), Err)
    }

    fn check_host(&self, host: &str) -> Result<(), Refusal> {
        let name = host_name(host);
        if !is_local(name) && !allows(self.allowed_hosts, name) {
            return Err(Refusal::Host(host.to_owned()));
        }
        Ok(())
    }

    fn check_origin(&self, origin: &str) -> Result<(), Refusal> {
        let local = origin
            .split_once("://")
            .is_some_and(|(scheme, rest)| matches!(scheme, "http" | "https") && is_local(host_name(rest)));
        if !local && !allows(self.allowed_origins, origin) {
            return Err(Refusal::Origin(origin.to_owned()));
        }
        Ok(())
    }
}

impl AccessPolicy<'_> {
    /// Whether a browser page at `origin` may call from another origin: only origins listed (or
    /// `*`), never localhost ones by default.
    pub(crate) fn allows_cross_origin(&self, origin: &str) -> bool {
        allows(self.allowed_origins, origin)
    }

    /// Whether any origin may call from another origin: whether origins are listed at all.
    pub(crate) fn allows_any_cross_origin(&self) -> bool {
        !self.allowed_origins.is_empty()
    }
}

fn allows(list: &[String], value: &str) -> bool {
    list.iter().any(|a| a == "*" || a.eq_ignore_ascii_case(value))
}

/// The host name of `host[:port]`, `[v6]:port` included.
fn host_name(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("");
    }
    // Searched for as a byte: every request's `Host` is read.
    match authority.bytes().rposition(|b| b == b':') {
        Some(colon) if authority.as_bytes()[colon + 1..].iter().all(u8::is_ascii_digit) => &authority[..colon],
        _ => authority,
    }
}

fn is_local(name: &str) -> bool {
    name.eq_ignore_ascii_case("localhost") || name == "127.0.0.1" || name == "::1"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        pairs.iter().map(|(k, v)| (k.parse().unwrap(), v.parse().unwrap())).collect()
    }

    #[test]
    fn localhost_passes_and_other_sites_do_not() {
        let p = AccessPolicy::default();
        assert!(p.check(&headers(&[("host", "127.0.0.1:8080"), ("origin", "http://localhost:3000")])).is_ok());
        assert!(p.check(&headers(&[("host", "[::1]:8080")])).is_ok());
        assert!(p.check(&headers(&[])).is_ok());
        assert_eq!(p.check(&headers(&[("host", "evil.example.com")])), Err(Refusal::Host("evil.example.com".into())));
        let evil_origin = headers(&[("host", "localhost"), ("origin", "http://evil.example.com")]);
        assert!(matches!(p.check(&evil_origin), Err(Refusal::Origin(_))));
        assert!(p.check(&headers(&[("host", "localhost.evil.com")])).is_err());
        let both = headers(&[("origin", "http://evil.example.com"), ("host", "evil.example.com")]);
        assert_eq!(p.check(&both), Err(Refusal::Host("evil.example.com".into())), "the host is reported first");
    }

    #[test]
    fn a_host_name_is_its_authority_less_a_numeric_port() {
        let names = [
            ("127.0.0.1:8080", "127.0.0.1"),
            ("localhost", "localhost"),
            ("localhost:", "localhost"),
            ("a:b:80", "a:b"),
            ("host:http", "host:http"),
            ("[::1]:8080", "::1"),
        ];
        for (authority, name) in names {
            assert_eq!(host_name(authority), name, "{authority}");
        }
    }

    #[test]
    fn allow_lists_extend_the_defaults() {
        let (origins, hosts) = (["https://app.example.com".to_owned()], ["mcp.internal".to_owned()]);
        let p = AccessPolicy { allowed_origins: &origins, allowed_hosts: &hosts };
        assert!(p.check(&headers(&[("host", "mcp.internal:80"), ("origin", "https://app.example.com")])).is_ok());
        assert!(p.check(&headers(&[("host", "mcp.internal"), ("origin", "https://other.example.com")])).is_err());
    }
}
