//! The request headers `/mcp` reads: what `Accept` takes, and the headers of a POST, found in one
//! pass.

use hyper::HeaderMap;
use hyper::header::{ACCEPT, CONTENT_TYPE, HeaderValue};

use super::{METHOD_HEADER, NAME_HEADER, SESSION_HEADER, VERSION_HEADER};

/// Which of the two kinds of answer `/mcp` gives a request's `Accept` takes.
#[derive(Default)]
pub(super) struct Accepts {
    pub(super) json: bool,
    pub(super) event_stream: bool,
}

/// The `Accept` MCP clients send, which is matched whole before a value is read item by item.
const USUAL_ACCEPT: &[u8] = b"application/json, text/event-stream";

impl Accepts {
    /// Adds what one `Accept` value takes, read as bytes: every request reads it.
    fn read(&mut self, value: &HeaderValue) {
        if value.as_bytes() == USUAL_ACCEPT {
            (self.json, self.event_stream) = (true, true);
            return;
        }
        // A value that is not visible text names no type.
        if value.to_str().is_err() {
            return;
        }
        for item in value.as_bytes().split(|&b| b == b',') {
            match item.split(|&b| b == b';').next().unwrap_or_default().trim_ascii() {
                b"*/*" => (self.json, self.event_stream) = (true, true),
                b"application/json" => self.json = true,
                b"text/event-stream" => self.event_stream = true,
                _ => {}
            }
        }
    }
}

/// What every `Accept` value of the request takes.
pub(super) fn accepts(headers: &HeaderMap) -> Accepts {
    let mut accepts = Accepts::default();
    for value in headers.get_all(ACCEPT) {
        accepts.read(value);
    }
    accepts
}

/// The headers a POST's handling reads: `Accept` whole, and the first value of the others (the
/// one a lookup finds). One pass over the few headers, each name compared as it is, costs less
/// than hashing six names to look them up.
#[derive(Default)]
pub(super) struct PostHeaders<'h> {
    pub(super) accepts: Accepts,
    /// Whether the request has an `Accept` header at all.
    pub(super) any_accept: bool,
    pub(super) content_type: Option<&'h HeaderValue>,
    /// `Mcp-Session-Id`.
    pub(super) session: Option<&'h HeaderValue>,
    /// `MCP-Protocol-Version`.
    pub(super) version: Option<&'h HeaderValue>,
    /// `Mcp-Method` (revision 2026-07-28).
    pub(super) method: Option<&'h HeaderValue>,
    /// `Mcp-Name` (revision 2026-07-28).
    pub(super) name: Option<&'h HeaderValue>,
}

impl<'h> PostHeaders<'h> {
    pub(super) fn of(headers: &'h HeaderMap) -> Self {
        let mut found = PostHeaders::default();
        for (name, value) in headers {
            let first = match name {
                name if *name == ACCEPT => {
                    found.any_accept = true;
                    found.accepts.read(value);
                    continue;
                }
                name if *name == CONTENT_TYPE => &mut found.content_type,
                name if *name == SESSION_HEADER => &mut found.session,
                name if *name == VERSION_HEADER => &mut found.version,
                name if *name == METHOD_HEADER => &mut found.method,
                name if *name == NAME_HEADER => &mut found.name,
                _ => continue,
            };
            first.get_or_insert(value);
        }
        found
    }

    /// Whether the body is declared `application/json` (parameters such as a charset aside).
    pub(super) fn is_json(&self) -> bool {
        // As clients send it, matched whole before it is read as text.
        if self.content_type.is_some_and(|v| v.as_bytes() == b"application/json") {
            return true;
        }
        self.content_type
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs.iter().map(|(k, v)| (k.parse().unwrap(), HeaderValue::from_static(v))).collect()
    }

    #[test]
    fn accept_takes_the_kinds_its_values_name() {
        let read = |pairs| {
            let a = accepts(&headers(pairs));
            (a.json, a.event_stream)
        };
        assert_eq!(read(&[("accept", "application/json, text/event-stream")]), (true, true));
        assert_eq!(read(&[("accept", "text/event-stream;q=0.9 , application/json")]), (true, true));
        assert_eq!(read(&[("accept", "application/json"), ("accept", "text/event-stream")]), (true, true));
        assert_eq!(read(&[("accept", "*/*")]), (true, true));
        assert_eq!(read(&[("accept", "application/json")]), (true, false));
        assert_eq!(read(&[("accept", "text/html")]), (false, false));
        assert_eq!(read(&[]), (false, false));
    }

    #[test]
    fn a_post_s_headers_are_the_first_value_of_each_as_a_lookup_finds_them() {
        let map = headers(&[
            ("content-type", "application/json; charset=utf-8"),
            ("mcp-session-id", "a"),
            ("mcp-session-id", "b"),
            ("MCP-Protocol-Version", "2025-06-18"),
            ("accept", "text/event-stream"),
        ]);
        let found = PostHeaders::of(&map);
        assert!(found.is_json() && found.any_accept && found.accepts.event_stream && !found.accepts.json);
        assert_eq!(found.session, map.get(SESSION_HEADER));
        assert_eq!(found.version, map.get(VERSION_HEADER));
        assert!(!PostHeaders::of(&headers(&[("content-type", "text/plain")])).is_json());
    }
}
