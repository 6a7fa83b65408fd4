//! A `tools/call` written the way clients write one (`jsonrpc`, an integer `id`, `method`, then
//! `params` with `name` and `arguments`, compact, in that order), recognized by its constant
//! parts: only the id, the name and the arguments are read. Anything else, and anything in those
//! three that is out of the ordinary (an id not of a few digits, a name with an escape), is left
//! to [`raw_request::read`](super::raw_request::read), which reads the same message alike.

use serde_json::value::RawValue;

use super::RequestId;

/// What the message is, up to its id.
const OPENING: &str = r#"{"jsonrpc":"2.0","id":"#;
/// From the id to the tool's name.
const TOOLS_CALL: &str = r#","method":"tools/call","params":{"name":""#;
/// From the name to the arguments.
const ARGUMENTS: &str = r#"","arguments":"#;
/// After the arguments: the ends of the params and of the message.
const CLOSING: &str = "}}";

/// Ids of up to this many digits fit an `i64` whatever they are.
const ID_DIGITS: usize = 18;

/// A `tools/call` read from its constant parts.
#[derive(Debug)]
pub(crate) struct CanonicalCall<'a> {
    pub(crate) id: RequestId,
    /// The tool's name, as written (it has no escape).
    pub(crate) name: &'a str,
    /// The text of the arguments object, read over as JSON (not yet as a value).
    pub(crate) arguments: &'a RawValue,
}

/// The call, when the message is one written this way.
pub(crate) fn read(bytes: &[u8]) -> Option<CanonicalCall<'_>> {
    read_closed_by(bytes, CLOSING)
}

/// The call, when the message is one written this way with `closing` after its arguments (the
/// rest of its params, constant too, then the ends of the params and of the message).
pub(crate) fn read_closed_by<'a>(bytes: &'a [u8], closing: &str) -> Option<CanonicalCall<'a>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let rest = text.strip_prefix(OPENING)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let (id, rest) = rest.split_at(digits);
    // JSON has no leading zeros.
    if !(1..=ID_DIGITS).contains(&id.len()) || (id.len() > 1 && id.starts_with('0')) {
        return None;
    }
    let id = RequestId::Number(id.parse().ok()?);
    let rest = rest.strip_prefix(TOOLS_CALL)?;
    // The name ends at its closing quote; an escape or a control character is left to serde.
    let end = rest.bytes().position(|b| b == b'"' || b == b'\\' || b < 0x20)?;
    let (name, rest) = rest.split_at(end);
    let arguments = rest.strip_prefix(ARGUMENTS)?.strip_suffix(closing)?;
    if !arguments.starts_with('{') || !arguments.ends_with('}') {
        return None;
    }
    // One JSON value, nothing after it: read over as the whole message's reader reads it.
    let arguments = serde_json::from_str(arguments).ok()?;
    Some(CanonicalCall { id, name, arguments })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str, arguments: &str) -> String {
        format!(r#"{OPENING}{id}{TOOLS_CALL}{name}{ARGUMENTS}{arguments}{CLOSING}"#)
    }

    #[test]
    fn reads_a_call_written_the_usual_way() {
        let line = call("42", "add_numbers", r#"{"a":1,"b":{"c":"}}"}}"#);
        let read = read(line.as_bytes()).unwrap();
        assert_eq!(
            (read.id, read.name, read.arguments.get()),
            (RequestId::Number(42), "add_numbers", r#"{"a":1,"b":{"c":"}}"}}"#)
        );
    }

    #[test]
    fn leaves_the_rest_to_serde() {
        let others = [
            call("01", "add", "{}"),
            call("", "add", "{}"),
            call("-1", "add", "{}"),
            call("1234567890123456789", "add", "{}"),
            call("1", r"a\u0062", "{}"),
            call("1", "a\tb", "{}"),
            call("1", "add", "[1]"),
            call("1", "add", "{} "),
            call("1", "add", r#"{"a":1,}"#),
            call("1", "add", r#"{"a":1}}{"b":2"#),
            format!("{} ", call("1", "add", "{}")),
            call("1", "add", "{}").replace(r#""2.0""#, r#""1.0""#),
        ];
        for line in others {
            assert!(read(line.as_bytes()).is_none(), "{line}");
        }
        assert!(read(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"\xff\",\"arguments\":{}}}").is_none());
    }
}
