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
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        for host in headers.get_all(HOST) {
            let host = host.to_str().unwrap_or("");
            let name = host_name(host);
            if !is_local(name) && !allows(self.allowed_hosts, name) {
                return Err(Refusal::Host(host.to_owned()));
            }
        }
        for origin in headers.get_all(ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            let local = origin
                .split_once("://")
                .is_some_and(|(scheme, rest)| matches!(scheme, "http" | "https") && is_local(host_name(rest)));
            if !local && !allows(self.allowed_origins, origin) {
                return Err(Refusal::Origin(origin.to_owned()));
            }
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
}

fn allows(list: &[String], value: &str) -> bool {
    list.iter().any(|a| a == "*" || a.eq_ignore_ascii_case(value))
}

/// The host name of `host[:port]`, `[v6]:port` included.
fn host_name(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("");
    }
    authority
        .rsplit_once(':')
        .map_or(authority, |(name, port)| if port.bytes().all(|b| b.is_ascii_digit()) { name } else { authority })
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
    }

    #[test]
    fn allow_lists_extend_the_defaults() {
        let (origins, hosts) = (["https://app.example.com".to_owned()], ["mcp.internal".to_owned()]);
        let p = AccessPolicy { allowed_origins: &origins, allowed_hosts: &hosts };
        assert!(p.check(&headers(&[("host", "mcp.internal:80"), ("origin", "https://app.example.com")])).is_ok());
        assert!(p.check(&headers(&[("host", "mcp.internal"), ("origin", "https://other.example.com")])).is_err());
    }
}
