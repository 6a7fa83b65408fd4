//! JSON-RPC 2.0 framing: decoding one message (a plain struct, then dispatch on its fields) and
//! encoding responses, errors, notifications and requests.
//!
//! ```
//! use tooltable::transport::jsonrpc::{self, Incoming, RequestId, RpcError, code};
//!
//! let Ok(Incoming::Request { id, method, .. }) = jsonrpc::decode(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#) else {
//!     panic!("a request")
//! };
//! assert_eq!((id.clone(), method.as_str()), (RequestId::Number(7), "ping"));
//! assert_eq!(jsonrpc::result(&id, &serde_json::json!({})), r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
//! let refused = jsonrpc::decode(b"{not json").unwrap_err();
//! assert_eq!(refused.error.code, code::PARSE_ERROR);
//! let error = jsonrpc::error(None, &RpcError::invalid_request("no"));
//! assert_eq!(error, r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}"#);
//! ```

pub(crate) mod canonical_call;
mod envelope;
mod frame;
mod prefix;
pub(crate) mod raw_request;

pub use frame::{error, notification, request, result};
pub(crate) use frame::{result_written_by, written_result};
pub use prefix::request_id_of_prefix;

use serde::Deserialize;
use serde_json::Value;

use envelope::{Envelope, Scalar};

pub use crate::api::rpc::{RequestId, RpcError, code};

/// One decoded message from the peer.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A request, which gets a response.
    Request {
        /// Its id.
        id: RequestId,
        /// Its method.
        method: String,
        /// Its params (an object or an array).
        params: Option<Value>,
    },
    /// A notification, which gets none.
    Notification {
        /// Its method.
        method: String,
        /// Its params (an object or an array).
        params: Option<Value>,
    },
    /// The peer's response to a request of ours.
    Response {
        /// The id of our request.
        id: RequestId,
        /// Its result or its error.
        result: Result<Value, RpcError>,
    },
}

/// A message that could not be decoded: the error to answer with, and the id when one was readable.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    /// The message's id, when one was readable.
    pub id: Option<RequestId>,
    /// The error to answer it with.
    pub error: RpcError,
    /// A `tools/call` whose arguments nest deeper than JSON values may here: bad input for the
    /// tool, so the session answers it as a tool failure rather than a protocol fault.
    pub too_deep_arguments: bool,
}

/// How deep a message may nest (serde_json's limit; deeper input would exhaust the stack).
pub const MAX_DEPTH: usize = 128;

/// The envelope of a message too deep to read whole: its params are skipped over, not built.
#[derive(Deserialize)]
struct ShallowEnvelope<'a> {
    id: Option<Value>,
    method: Option<String>,
    #[serde(borrow)]
    params: Option<&'a serde_json::value::RawValue>,
}

/// Decodes one message. Parse errors get -32700; valid JSON that is no JSON-RPC message -32600.
// The error is as large as the message it stands for would have been; it is built once, rarely.
#[allow(clippy::result_large_err)]
pub fn decode(bytes: &[u8]) -> Result<Incoming, DecodeError> {
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    let fail = |id: Option<RequestId>, error: RpcError| Err(DecodeError { id, error, too_deep_arguments: false });
    if first != Some(b'{') {
        return match serde_json::from_slice::<Value>(bytes) {
            Err(e) => fail(None, parse_error(&e)),
            Ok(Value::Array(_)) => fail(
                None,
                RpcError::invalid_request(
                    "JSON-RPC batches are not supported by this protocol revision (only 2025-03-26 has them): send one message at a time",
                ),
            ),
            Ok(_) => fail(None, RpcError::invalid_request("a JSON-RPC message must be a JSON object")),
        };
    }
    let env: Envelope = match envelope::read(bytes) {
        Ok(env) => env,
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => return Err(too_deep(bytes, &e)),
        Err(e) => return fail(None, parse_error(&e)),
    };
    let id = match env.id.map(Scalar::into_request_id) {
        None => None,
        Some(Some(id)) => Some(id),
        Some(None) => return fail(None, RpcError::invalid_request("the id must be a string or an integer")),
    };
    if !matches!(&env.jsonrpc, Some(Scalar::Str(version)) if version == "2.0") {
        return fail(id, RpcError::invalid_request("the message must carry \"jsonrpc\": \"2.0\""));
    }
    if let Some(p) = &env.params
        && !p.is_object()
        && !p.is_array()
    {
        return fail(id, RpcError::invalid_request("params must be an object or an array"));
    }
    match (env.method, id) {
        (Some(Scalar::Str(method)), Some(id)) => {
            Ok(Incoming::Request { id, method: method.into_owned(), params: env.params })
        }
        (Some(Scalar::Str(method)), None) => {
            Ok(Incoming::Notification { method: method.into_owned(), params: env.params })
        }
        (Some(_), id) => fail(id, RpcError::invalid_request("the method must be a string")),
        (None, Some(id)) => match (env.result, env.error) {
            (Some(result), None) => Ok(Incoming::Response { id, result: Ok(result) }),
            (None, Some(error)) => match serde_json::from_value::<RpcError>(error) {
                Ok(error) => Ok(Incoming::Response { id, result: Err(error) }),
                Err(_) => fail(Some(id), RpcError::invalid_request("the error must have a code and a message")),
            },
            _ => fail(Some(id), RpcError::invalid_request("a request needs a method")),
        },
        (None, None) => fail(None, RpcError::invalid_request("a request needs a method")),
    }
}

/// The most messages one JSON-RPC batch may hold (protocol revision 2025-03-26).
pub const MAX_BATCH: usize = 100;

/// Whether the message is a JSON array, that is a JSON-RPC batch.
pub fn is_batch(bytes: &[u8]) -> bool {
    bytes.iter().copied().find(|b| !b.is_ascii_whitespace()) == Some(b'[')
}

/// One member of a batch, decoded as [`decode`] decodes a message alone.
#[allow(clippy::result_large_err)]
pub type BatchMember = Result<Incoming, DecodeError>;

/// Decodes a JSON-RPC batch into its members. The batch itself is refused (-32700 when it is no
/// JSON, -32600 when it is empty or holds more than [`MAX_BATCH`] messages); a member that is no
/// message is an error among the members, answered in its place.
#[allow(clippy::result_large_err)]
pub fn decode_batch(bytes: &[u8]) -> Result<Vec<BatchMember>, DecodeError> {
    let fail = |error: RpcError| Err(DecodeError { id: None, error, too_deep_arguments: false });
    let members: Vec<&serde_json::value::RawValue> = match serde_json::from_slice(bytes) {
        Ok(members) => members,
        Err(e) if e.is_syntax() || e.is_eof() => return fail(parse_error(&e)),
        Err(e) => {
            return fail(RpcError::invalid_request(format!("a JSON-RPC batch must be an array of messages: {e}")));
        }
    };
    match members.len() {
        0 => fail(RpcError::invalid_request("a JSON-RPC batch must hold at least one message")),
        n if n > MAX_BATCH => fail(RpcError::invalid_request(format!(
            "a JSON-RPC batch of {n} messages exceeds the limit of {MAX_BATCH}; send fewer at once"
        ))),
        _ => Ok(members.into_iter().map(|raw| decode(raw.get().as_bytes())).collect()),
    }
}

/// A message nested past [`MAX_DEPTH`]: its id and method are still read (skipping over params
/// takes no recursion), so the answer can name the request.
fn too_deep(bytes: &[u8], e: &serde_json::Error) -> DecodeError {
    let Ok(shallow) = serde_json::from_slice::<ShallowEnvelope>(bytes) else {
        return DecodeError { id: None, error: parse_error(e), too_deep_arguments: false };
    };
    let id = shallow.id.and_then(RequestId::from_json);
    let too_deep_arguments =
        id.is_some() && shallow.method.as_deref() == Some("tools/call") && shallow.params.is_some();
    let error = RpcError::invalid_params(format!("the message nests deeper than {MAX_DEPTH} levels"));
    DecodeError { id, error, too_deep_arguments }
}

fn parse_error(e: &serde_json::Error) -> RpcError {
    RpcError::new(code::PARSE_ERROR, format!("Parse error: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_of(line: &str) -> i32 {
        decode(line.as_bytes()).unwrap_err().error.code
    }

    #[test]
    fn decodes_each_kind() {
        let r = decode(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#).unwrap();
        assert_eq!(r, Incoming::Request { id: RequestId::Number(7), method: "ping".into(), params: None });
        let n = decode(br#"{"jsonrpc":"2.0","method":"x","params":{}}"#).unwrap();
        assert!(matches!(n, Incoming::Notification { .. }));
        let resp = decode(br#"{"jsonrpc":"2.0","id":"a","result":{}}"#).unwrap();
        assert!(matches!(resp, Incoming::Response { result: Ok(_), .. }));
    }

    #[test]
    fn refuses_what_is_not_a_message() {
        assert_eq!(code_of("{nope"), code::PARSE_ERROR);
        assert_eq!(code_of("[1]"), code::INVALID_REQUEST);
        assert_eq!(code_of("[1"), code::PARSE_ERROR);
        assert_eq!(code_of("42"), code::INVALID_REQUEST);
        assert_eq!(code_of(r#"{"jsonrpc":"2.0","id":1}"#), code::INVALID_REQUEST);
        assert_eq!(code_of(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#), code::INVALID_REQUEST);
        assert_eq!(code_of(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#), code::INVALID_REQUEST);
        assert_eq!(code_of(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":3}"#), code::INVALID_REQUEST);
        let e = decode(br#"{"jsonrpc":"2.0","id":9,"method":5}"#).unwrap_err();
        assert_eq!(e.id, Some(RequestId::Number(9)));
    }

    #[test]
    fn a_message_too_deep_still_names_its_request() {
        let deep = |method: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":4,"method":"{method}","params":{{"arguments":{{"v":{}1{}}}}}}}"#,
                "[".repeat(10_000),
                "]".repeat(10_000)
            )
        };
        let e = decode(deep("tools/call").as_bytes()).unwrap_err();
        assert_eq!(
            (e.id, e.error.code, e.too_deep_arguments),
            (Some(RequestId::Number(4)), code::INVALID_PARAMS, true)
        );
        let e = decode(deep("prompts/get").as_bytes()).unwrap_err();
        assert_eq!((e.id, e.too_deep_arguments), (Some(RequestId::Number(4)), false));
    }

    #[test]
    fn a_batch_decodes_member_by_member_within_its_bound() {
        let members =
            decode_batch(br#" [{"jsonrpc":"2.0","id":1,"method":"ping"}, 5, {"jsonrpc":"2.0","method":"n"}]"#).unwrap();
        assert!(matches!(&members[0], Ok(Incoming::Request { method, .. }) if method == "ping"));
        assert_eq!(members[1].as_ref().unwrap_err().error.code, code::INVALID_REQUEST);
        assert!(matches!(&members[2], Ok(Incoming::Notification { .. })));
        assert_eq!(decode_batch(b"[]").unwrap_err().error.code, code::INVALID_REQUEST);
        assert_eq!(decode_batch(b"[{},").unwrap_err().error.code, code::PARSE_ERROR);
        let ping = r#"{"jsonrpc":"2.0","method":"n"}"#;
        let full = format!("[{}]", vec![ping; MAX_BATCH].join(","));
        assert_eq!(decode_batch(full.as_bytes()).unwrap().len(), MAX_BATCH);
        let over = format!("[{}]", vec![ping; MAX_BATCH + 1].join(","));
        let e = decode_batch(over.as_bytes()).unwrap_err();
        assert!(e.error.message.contains("exceeds the limit of 100"), "{}", e.error.message);
        let deep = format!("[{}1{}]", "[".repeat(10_000), "]".repeat(10_000));
        let members = decode_batch(deep.as_bytes()).expect("skipped over, not built");
        assert_eq!(members[0].as_ref().unwrap_err().error.code, code::PARSE_ERROR, "too deep");
        assert!(is_batch(b" \n[1]") && !is_batch(b"{}"));
    }
}
