//! A `tools/call` written the way clients write one, recognized by its constant parts: only the
//! id and the name are read, and the rest of the params (from the arguments on) is found for the
//! caller to read. Clients write one of two orders, compact: `jsonrpc`, an integer `id`,
//! `method`, then `params` (the Python SDK, rmcp, tooltable's client), or `method`, `params`,
//! then `jsonrpc` and `id` (the TypeScript SDK, which most hosts embed); `params` hold `name` and
//! `arguments`, in that order, then what the caller names. Anything else, and anything in those
//! three that is out of the ordinary (an id not of a few digits, a name with an escape), is left
//! to [`raw_request::read`](super::raw_request::read), which reads the same message alike.

use super::RequestId;

/// The envelope first, up to the id.
const ENVELOPE_FIRST: &str = r#"{"jsonrpc":"2.0","id":"#;
/// From the id to the tool's name.
const TOOLS_CALL: &str = r#","method":"tools/call","params":{"name":""#;
/// The method first, up to the tool's name.
const METHOD_FIRST: &str = r#"{"method":"tools/call","params":{"name":""#;
/// From the name to the arguments.
const ARGUMENTS: &str = r#"","arguments":"#;
/// The envelope last: from the params' end to the id.
const ENVELOPE_LAST: &str = r#","jsonrpc":"2.0","id":"#;

/// Ids of up to this many digits fit an `i64` whatever they are.
const ID_DIGITS: usize = 18;

/// The id, the tool's name, and the rest of the params as text (from the arguments to the
/// params' closing brace), when the message is written this way up to its arguments; the rest
/// is for the caller to read.
pub(crate) fn read_parts(bytes: &[u8]) -> Option<(RequestId, &str, &str)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let (id, named) = match text.strip_prefix(ENVELOPE_FIRST) {
        Some(rest) => {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let (id, rest) = rest.split_at(digits);
            (id, rest.strip_prefix(TOOLS_CALL)?.strip_suffix('}')?)
        }
        None => {
            let rest = text.strip_prefix(METHOD_FIRST)?.strip_suffix('}')?;
            let digits = rest.bytes().rev().take_while(u8::is_ascii_digit).count();
            let (rest, id) = rest.split_at(rest.len() - digits);
            (id, rest.strip_suffix(ENVELOPE_LAST)?)
        }
    };
    // JSON has no leading zeros.
    if !(1..=ID_DIGITS).contains(&id.len()) || (id.len() > 1 && id.starts_with('0')) {
        return None;
    }
    let id = RequestId::Number(id.parse().ok()?);
    // The name ends at its closing quote; an escape or a control character is left to serde.
    let end = named.bytes().position(|b| b == b'"' || b == b'\\' || b < 0x20)?;
    let (name, rest) = named.split_at(end);
    Some((id, name, rest.strip_prefix(ARGUMENTS)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::methods::tool_call;

    fn call(id: &str, name: &str, arguments: &str) -> String {
        format!(r#"{ENVELOPE_FIRST}{id}{TOOLS_CALL}{name}{ARGUMENTS}{arguments}}}}}"#)
    }

    fn method_first(id: &str, name: &str, arguments: &str) -> String {
        format!(r#"{METHOD_FIRST}{name}{ARGUMENTS}{arguments}}}{ENVELOPE_LAST}{id}}}"#)
    }

    /// The arguments, when the line is a call written the usual way, its params `name` and
    /// `arguments` alone (as a session's reader takes it).
    fn usual(line: &str) -> Option<&str> {
        let (_, _, rest) = read_parts(line.as_bytes())?;
        let (text, _, after) = tool_call::arguments_at(rest, |_| None)?;
        (after == "}").then_some(text)
    }

    #[test]
    fn reads_a_call_written_either_usual_way() {
        let arguments = r#"{"a":1,"b":{"c":"}},\"jsonrpc\":\"2.0\",\"id\":7}"}}"#;
        for line in [call("42", "add_numbers", arguments), method_first("42", "add_numbers", arguments)] {
            let (id, name, rest) = read_parts(line.as_bytes()).unwrap();
            assert_eq!((id, name, rest), (RequestId::Number(42), "add_numbers", &*format!("{arguments}}}")));
            assert_eq!(usual(&line), Some(arguments));
            let as_value: serde_json::Value = serde_json::from_str(&line).unwrap();
            assert_eq!(as_value["params"]["arguments"], serde_json::from_str::<serde_json::Value>(arguments).unwrap());
        }
        for id in ["1", "10", "999999999999999999"] {
            for line in [call(id, "t", "{}"), method_first(id, "t", "{}")] {
                let (read, _, _) = read_parts(line.as_bytes()).unwrap();
                assert_eq!(read, RequestId::Number(id.parse().unwrap()), "{line}");
            }
        }
        assert_eq!(
            method_first("7", "t", "{}"),
            r#"{"method":"tools/call","params":{"name":"t","arguments":{}},"jsonrpc":"2.0","id":7}"#
        );
    }

    #[test]
    fn reads_what_follows_the_arguments_as_the_caller_says() {
        let meta = r#","_meta":{"k":1}}"#;
        let line = format!(r#"{METHOD_FIRST}t{ARGUMENTS}{{}}{meta}{ENVELOPE_LAST}3}}"#);
        let (id, name, rest) = read_parts(line.as_bytes()).unwrap();
        assert_eq!((id, name, rest), (RequestId::Number(3), "t", &*format!("{{}}{meta}")));
        assert!(usual(&line).is_none(), "a member after the arguments is no usual call's");
    }

    #[test]
    fn leaves_the_rest_to_serde() {
        for write in [call, method_first] {
            let others = [
                write("01", "add", "{}"),
                write("", "add", "{}"),
                write("-1", "add", "{}"),
                write("1234567890123456789", "add", "{}"),
                write("1", r"a\u0062", "{}"),
                write("1", "a\tb", "{}"),
                write("1", "add", "[1]"),
                write("1", "add", "{} "),
                write("1", "add", r#"{"a":1,}"#),
                write("1", "add", r#"{"a":1}}{"b":2"#),
                write("1", "add", r#"{"a":1}},"jsonrpc":"2.0","id":2},"x":{"y":1"#),
                format!("{} ", write("1", "add", "{}")),
                write("1", "add", "{}").replace(r#""2.0""#, r#""1.0""#),
                write("1", "add", "{}").replace("tools/call", "tools/list"),
            ];
            for line in others {
                assert!(usual(&line).is_none(), "{line}");
            }
        }
        assert!(read_parts(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"\xff\",\"arguments\":{}}}").is_none());
        let not_utf8 = b"{\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"a\":\"\xc3\"}},\"jsonrpc\":\"2.0\",\"id\":1}";
        assert!(read_parts(not_utf8).is_none(), "arguments that are not UTF-8");
        let two_ids = r#"{"method":"tools/call","params":{"name":"t","arguments":{}},"jsonrpc":"2.0","id":1,"id":2}"#;
        assert!(usual(two_ids).is_none());
    }
}
