//! Streamable HTTP for revision 2026-07-28: no session. Each POST carries one request with its
//! own `_meta`, checked against the `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
//! `Mcp-Param-*` headers that mirror it; it is served by a session of its own that lives as long
//! as its answer (a listen's stream included), so closing the stream cancels the request. A
//! listen, which has no answer to wait for, ends as soon as its client hangs up and when the
//! server shuts down.

use std::borrow::Cow;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hyper::header::{AsHeaderName, HeaderValue};
use hyper::{HeaderMap, StatusCode};
use serde_json::Value;
use tooltable::transport::jsonrpc::{Incoming as Message, RpcError, code};
use tooltable::transport::{
    META_PROTOCOL_VERSION as PROTOCOL_VERSION, MarkedProperties, STATELESS_VERSIONS, SUPPORTED_VERSIONS, StatelessCall,
};

use super::super::HttpContext;
use super::super::body::{self, HttpResponse, StreamOwner};
use super::super::connections::Hangup;
use super::connection::{CallSession, Kept};
use super::headers::PostHeaders;
use super::streams::FirstAnswer;
use super::{Answered, METHOD_HEADER, NAME_HEADER, VERSION_HEADER, answer_post, exchange, rpc_error};

/// Whether a POST with no session speaks the stateless revision: by its header or its `_meta`.
pub(super) fn speaks(headers: &HeaderMap, message: &Message) -> bool {
    let by_header = header(headers, &VERSION_HEADER).is_some_and(|v| !is_handshake_version(v));
    by_header
        || match message {
            Message::Request { params, .. } | Message::Notification { params, .. } => {
                params.as_ref().and_then(|p| p.get("_meta")).and_then(|m| m.get(PROTOCOL_VERSION)).is_some()
            }
            Message::Response { .. } => false,
        }
}

fn is_handshake_version(v: &str) -> bool {
    SUPPORTED_VERSIONS.contains(&v) && !STATELESS_VERSIONS.contains(&v)
}

pub(super) async fn post<S: Send + Sync + 'static>(
    cx: &HttpContext<S>,
    headers: &HeaderMap,
    message: Message,
    streamable: bool,
    caller: &super::Caller,
) -> HttpResponse {
    let Message::Request { id, method, params } = message else {
        // This revision defines no client notification over HTTP (closing a stream cancels).
        return body::empty(StatusCode::ACCEPTED);
    };
    if let Err(e) = check_headers(cx, headers, &method, &params) {
        return rpc_error(StatusCode::BAD_REQUEST, Some(&id), &e);
    }
    let http = cx.sessions.ephemeral(&cx.server, caller.client);
    // The session lives as long as the stream; the client closing it cancels the request. A
    // listen's stream also tells the connection that it watches for its client's hangup.
    let owner = match method == "subscriptions/listen" {
        true => {
            cx.sessions.listening(&http);
            StreamOwner(Arc::new((Arc::clone(&http), caller.hangup.as_ref().map(Hangup::watch))))
        }
        false => StreamOwner(Arc::clone(&http) as Arc<dyn Send + Sync>),
    };
    let answered = Answered { status: error_status, headers: HeaderMap::new(), owner: Some(owner) };
    let message = Message::Request { id: id.clone(), method, params };
    exchange(&http, &id, streamable, cx.options.sse_keepalive, answered, || {
        http.session.handle(message, &caller.context)
    })
    .await
}

/// Serves a `tools/call` read from its text ([`StatelessCall::read`]) whose headers
/// [`mirror`](mirrors) it, as [`post`] serves the call decoded; its JSON answer takes `headers`,
/// the request's own map.
pub(super) async fn call<S: Send + Sync + 'static>(
    cx: &HttpContext<S>,
    call: StatelessCall<'_>,
    headers: HeaderMap,
    streamable: bool,
    caller: &super::Caller,
    kept: Option<&Kept<S>>,
) -> HttpResponse {
    let id = call.id().clone();
    let mut served = CallSession::for_call(kept, &cx.sessions, &cx.server, &id, streamable);
    served.session.call_stateless(call, &caller.context);
    let answer = served.one_call.answer().await;
    // A stream keeps the session, and the client closing it cancels the call; a call answered as
    // plain JSON leaves nothing behind, and its session serves the connection's next call.
    let owner = match answer {
        Some(FirstAnswer::Stream(_)) => Some(StreamOwner(Arc::new(served.session))),
        Some(FirstAnswer::Json(_)) => {
            served.keep(kept);
            None
        }
        _ => None,
    };
    let answered = Answered { status: error_status, headers, owner };
    answer_post(answer, &id, cx.options.sse_keepalive, answered)
}

/// Whether the headers mirror a call read from its text as [`check_headers`] requires (its tool
/// marks no argument); `false` leaves the call to [`post`], which answers any mismatch.
pub(super) fn mirrors(headers: &PostHeaders<'_>, call: &StatelessCall<'_>) -> bool {
    // Bytes equal to a version or method, which are visible ASCII, are as valid as those are.
    let is = |value: Option<&HeaderValue>, expected: &str| value.is_some_and(|v| v.as_bytes() == expected.as_bytes());
    // A tool's name (the call's is one) is plain ASCII, never Base64-wrapped: a header equal to it
    // names it as it is, and only another needs decoding.
    let names = |value: Option<&HeaderValue>| {
        is(value, call.tool()) || visible(value).map(decoded).is_some_and(|name| name.as_deref() == Ok(call.tool()))
    };
    is(headers.version, call.version()) && is(headers.method, "tools/call") && names(headers.name)
}

/// A header value's text, when it is valid visible ASCII.
fn visible(value: Option<&HeaderValue>) -> Option<&str> {
    value.and_then(|v| v.to_str().ok())
}

/// The status a stateless answer is sent with: 404 for an unknown method, 400 for a request the
/// revision refuses (bad `_meta`, version, capability, headers), else 200.
fn error_status(answer: &str) -> StatusCode {
    // Most answers are results, spared a second parse: the engine's frame says so before its
    // value (which may be long), and an answer without `"error"` anywhere is no error either.
    if is_result(answer) || !answer.contains("\"error\"") {
        return StatusCode::OK;
    }
    #[derive(serde::Deserialize)]
    struct Answer {
        error: Option<Code>,
    }
    #[derive(serde::Deserialize)]
    struct Code {
        code: i32,
    }
    match serde_json::from_str::<Answer>(answer).ok().and_then(|a| a.error).map(|e| e.code) {
        Some(code::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            code::INVALID_PARAMS
            | code::INVALID_REQUEST
            | code::UNSUPPORTED_PROTOCOL_VERSION
            | code::MISSING_REQUIRED_CLIENT_CAPABILITY
            | code::HEADER_MISMATCH,
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// Whether an answer is a result by the engine's frame, `{"jsonrpc":"2.0","id":ID,"result":`: a
/// string id is skipped to its closing quote (serde_json escapes any within it).
fn is_result(answer: &str) -> bool {
    // Read as bytes: the frame and a number are ASCII, and a string id ends at a quote byte.
    let Some(id) = answer.as_bytes().strip_prefix(br#"{"jsonrpc":"2.0","id":"#) else { return false };
    let id_len = match id.split_first() {
        Some((b'"', text)) => {
            let mut escaped = false;
            let end = text.iter().position(|&b| {
                let closes = b == b'"' && !escaped;
                escaped = b == b'\\' && !escaped;
                closes
            });
            match end {
                Some(end) => end + 2,
                None => return false,
            }
        }
        _ => id.iter().take_while(|&&b| b.is_ascii_digit() || b == b'-').count(),
    };
    id[id_len..].starts_with(br#","result":"#)
}

/// The headers must mirror the body: the version, the method, the name, and each argument the
/// tool marks with `x-mcp-header` (-32020 `HeaderMismatch` otherwise).
fn check_headers<S: Send + Sync + 'static>(
    cx: &HttpContext<S>,
    headers: &HeaderMap,
    method: &str,
    params: &Option<Value>,
) -> Result<(), RpcError> {
    let name_key = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    // One pass over the few members, each compared as text: cheaper than hashing a name per lookup.
    let (mut meta, mut named, mut arguments) = (None, None, None);
    for (key, value) in params.as_ref().and_then(Value::as_object).into_iter().flatten() {
        match key.as_str() {
            "_meta" => meta = Some(value),
            "arguments" => arguments = Some(value),
            key if name_key == Some(key) => named = Some(value),
            _ => {}
        }
    }
    let version =
        header(headers, &VERSION_HEADER).ok_or_else(|| mismatch("the MCP-Protocol-Version header is missing"))?;
    if let Some(body_version) = meta.and_then(|m| member(m, PROTOCOL_VERSION)).and_then(Value::as_str)
        && body_version != version
    {
        return Err(mismatch(format!(
            "the MCP-Protocol-Version header {version:?} does not match the body's {body_version:?}"
        )));
    }
    match header(headers, &METHOD_HEADER) {
        None => return Err(mismatch("the Mcp-Method header is missing")),
        Some(m) if m != method => {
            return Err(mismatch(format!("the Mcp-Method header {m:?} does not match the body's {method:?}")));
        }
        Some(_) => {}
    }
    let named = named.and_then(Value::as_str);
    if let Some(name) = named {
        match header(headers, &NAME_HEADER).map(decoded) {
            None => return Err(mismatch("the Mcp-Name header is missing")),
            Some(Err(e)) => return Err(mismatch(format!("the Mcp-Name header: {e}"))),
            Some(Ok(h)) if h != name => {
                return Err(mismatch(format!("the Mcp-Name header {h:?} does not match the body's {name:?}")));
            }
            Some(Ok(_)) => {}
        }
    }
    if method == "tools/call"
        && let (Some(name), Some(args)) = (named, arguments)
        && let Some(tool) = cx.server.table().get(name)
    {
        check_param_headers(headers, &tool.marked_headers, args)?;
    }
    Ok(())
}

/// An object's member, found by comparing names: the object is small.
fn member<'a>(object: &'a Value, key: &str) -> Option<&'a Value> {
    object.as_object()?.iter().find_map(|(k, v)| (k == key).then_some(v))
}

/// Each marked property (see [`MarkedProperties`]) whose argument is present and not null must
/// come as `Mcp-Param-{mark}` with the same value.
fn check_param_headers(headers: &HeaderMap, marked: &MarkedProperties, args: &Value) -> Result<(), RpcError> {
    // Most tools mark nothing, and most calls' marked arguments are scalars: neither allocates.
    let (mut next, mut stack) = (Some((marked, args)), Vec::new());
    while let Some((marked, value)) = next.take().or_else(|| stack.pop()) {
        for property in marked.iter() {
            let Some(arg) = value.get(&property.key).filter(|v| !v.is_null()) else { continue };
            if let Some(name) = &property.mark {
                let header_name = format!("mcp-param-{}", name.to_ascii_lowercase());
                let given = match header(headers, header_name.as_str()).map(decoded) {
                    None => return Err(mismatch(format!("the Mcp-Param-{name} header is missing"))),
                    Some(Err(e)) => return Err(mismatch(format!("the Mcp-Param-{name} header: {e}"))),
                    Some(Ok(given)) => given,
                };
                if !same_value(&given, arg) {
                    let key = &property.key;
                    return Err(mismatch(format!("the Mcp-Param-{name} header does not match the argument `{key}`")));
                }
            }
            if arg.is_object() && !property.properties.is_empty() {
                stack.push((&property.properties, arg));
            }
        }
    }
    Ok(())
}

/// A header value as the body would hold it: integers compare as numbers, booleans as
/// `true`/`false`, strings as they are.
fn same_value(header: &str, arg: &Value) -> bool {
    match arg {
        Value::String(s) => s == header,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(n) => header.parse::<f64>().ok().zip(n.as_f64()).is_some_and(|(h, a)| h == a),
        _ => false,
    }
}

/// A header's text, when it is valid visible ASCII.
fn header(headers: &HeaderMap, name: impl AsHeaderName) -> Option<&str> {
    visible(headers.get(name))
}

/// A mirrored value, Base64 sentinel (`=?base64?...?=`) decoded.
fn decoded(value: &str) -> Result<Cow<'_, str>, String> {
    match value.strip_prefix("=?base64?").and_then(|v| v.strip_suffix("?=")) {
        Some(encoded) => STANDARD
            .decode(encoded)
            .map_err(|e| format!("invalid Base64: {e}"))
            .and_then(|bytes| String::from_utf8(bytes).map_err(|_| "the decoded value is not UTF-8".to_owned()))
            .map(Cow::Owned),
        None => Ok(Cow::Borrowed(value)),
    }
}

fn mismatch(message: impl Into<String>) -> RpcError {
    RpcError::new(code::HEADER_MISMATCH, format!("Header mismatch: {}", message.into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mirrored_values_are_decoded_and_compared_as_the_body_holds_them() {
        assert_eq!(decoded("us-west1").as_deref(), Ok("us-west1"));
        assert_eq!(decoded("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(), Ok("Hello, 世界"));
        assert!(decoded("=?base64?!!?=").is_err());
        assert!(same_value("42", &json!(42)) && same_value("42.0", &json!(42)) && !same_value("43", &json!(42)));
        assert!(same_value("true", &json!(true)) && !same_value("True", &json!(true)));
    }

    #[test]
    fn a_result_is_told_by_its_frame() {
        assert!(is_result(r#"{"jsonrpc":"2.0","id":-12,"result":{"error":1}}"#));
        assert!(is_result(r#"{"jsonrpc":"2.0","id":"a\\\",\"result\":","result":{}}"#));
        assert!(!is_result(r#"{"jsonrpc":"2.0","id":"x\",\"result\":","error":{"code":1}}"#));
        assert!(!is_result(r#"{"jsonrpc":"2.0","id":null,"error":{"data":{"result":1}}}"#));
        assert!(is_result(r#"{"jsonrpc":"2.0","id":"é\"ü","result":{}}"#), "a string id is skipped byte by byte");
        assert!(!is_result(r#"{"jsonrpc":"2.0","id":"never closed"#));
        assert!(!is_result(r#"{"jsonrpc":"2.0","id":7"#));
        assert_eq!(
            error_status(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}}"#),
            StatusCode::NOT_FOUND
        );
        assert_eq!(error_status(r#"{"jsonrpc":"2.0","id":"1","result":{"x":"error"}}"#), StatusCode::OK);
    }

    #[test]
    fn a_marked_argument_needs_its_header() {
        let schema = json!({ "type": "object", "properties": {
            "region": { "type": "string", "x-mcp-header": "Region" },
            "nested": { "type": "object", "properties": { "n": { "type": "integer", "x-mcp-header": "N" } } },
        } });
        let schema = MarkedProperties::of(&schema);
        let mut headers = HeaderMap::new();
        let args = json!({ "region": "eu", "nested": { "n": 7 } });
        assert_eq!(check_param_headers(&headers, &schema, &args).unwrap_err().code, code::HEADER_MISMATCH);
        headers.insert("mcp-param-region", "eu".parse().unwrap());
        headers.insert("mcp-param-n", "7".parse().unwrap());
        assert!(check_param_headers(&headers, &schema, &args).is_ok());
        assert!(check_param_headers(&HeaderMap::new(), &schema, &json!({ "region": null })).is_ok(), "null: no header");
        headers.insert("mcp-param-n", "8".parse().unwrap());
        assert!(check_param_headers(&headers, &schema, &args).is_err());
    }
}
