//! The `requestState` of a multi-round request (revision 2026-07-28): the answers a client gave
//! in earlier rounds, bound to the request they answer and to an expiry, signed with the
//! server's key (HMAC-SHA256). The client keeps it and sends it back; any instance holding the
//! key can continue the request, so no instance needs to remember anything between rounds.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// How long a client has to answer one round.
pub const ROUND_LIFETIME: Duration = Duration::from_secs(600);

/// What a state carries, signed.
#[derive(Debug, Serialize, Deserialize)]
struct Sealed<'a> {
    /// The format's version.
    v: u32,
    /// The digest of the request it answers.
    #[serde(borrow)]
    req: std::borrow::Cow<'a, str>,
    /// When it expires, in seconds since the epoch.
    exp: u64,
    answers: Map<String, Value>,
}

/// The key that signs request states. Instances that serve the same clients share one.
#[derive(Clone)]
pub struct StateKey([u8; 32]);

impl StateKey {
    /// A key of the process's own, for a server that runs as one instance.
    pub fn random() -> Self {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).expect("the operating system's random source");
        StateKey(key)
    }

    /// A key derived from a secret every instance is given (at least 16 bytes).
    pub fn from_secret(secret: &[u8]) -> Option<Self> {
        (secret.len() >= 16).then(|| StateKey(Sha256::digest(secret).into()))
    }

    fn mac(&self) -> Hmac<Sha256> {
        <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0).expect("HMAC takes a key of any length")
    }

    /// The state carrying `answers` for the request whose digest is `request`.
    pub(crate) fn seal(&self, request: &str, answers: &Map<String, Value>) -> String {
        let expires = now_secs() + ROUND_LIFETIME.as_secs();
        let sealed = Sealed { v: 1, req: request.into(), exp: expires, answers: answers.clone() };
        let body = serde_json::to_string(&sealed).unwrap_or_default();
        let body = URL_SAFE_NO_PAD.encode(body);
        let mut mac = self.mac();
        mac.update(body.as_bytes());
        let tag = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        format!("{body}.{tag}")
    }

    /// The answers a state carries, when it is this server's, for this request, and not expired.
    pub(crate) fn open(&self, state: &str, request: &str) -> Result<Map<String, Value>, StateError> {
        let (body, tag) = state.split_once('.').ok_or(StateError::Tampered)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| StateError::Tampered)?;
        let mut mac = self.mac();
        mac.update(body.as_bytes());
        mac.verify_slice(&tag).map_err(|_| StateError::Tampered)?;
        let body = URL_SAFE_NO_PAD.decode(body).map_err(|_| StateError::Tampered)?;
        // Signed with this key, so written by `seal`: a body of another shape was not.
        let sealed: Sealed = serde_json::from_slice(&body).map_err(|_| StateError::Tampered)?;
        if sealed.req != request {
            return Err(StateError::Foreign);
        }
        if sealed.exp < now_secs() {
            return Err(StateError::Expired);
        }
        Ok(sealed.answers)
    }
}

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey(..)")
    }
}

/// Why a `requestState` was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateError {
    /// Not signed by this server's key, or altered since.
    Tampered,
    /// Signed for another request (another tool, other arguments).
    Foreign,
    /// Older than [`ROUND_LIFETIME`].
    Expired,
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StateError::Tampered => "requestState failed its integrity check",
            StateError::Foreign => "requestState belongs to another request",
            StateError::Expired => "requestState has expired: start the request again",
        })
    }
}

/// What a request's state is bound to: its method and its parameters, less what changes between
/// rounds (`_meta`, `inputResponses`, `requestState`), written with object keys in sorted order so
/// that a client that reorders them is still the same request. Digested only when a state is
/// opened or sealed: most requests never ask the client, and the digest costs more than the text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BoundRequest {
    method: &'static str,
    params: BoundParams,
}

/// The params a request is bound to, as they were read.
#[derive(Debug, Clone, PartialEq)]
enum BoundParams {
    /// Read as a JSON value, and written out at once as the canonical text.
    Canonical(Vec<u8>),
    /// A `tools/call` read from its text: its name, then its arguments' text if it has any, in one
    /// string (one copy of the request, not one per part); written out as the canonical text
    /// only when digested.
    Call { text: String, name_len: usize, has_arguments: bool },
}

/// The params a request's state is not bound to.
const UNBOUND: [&str; 3] = ["_meta", "inputResponses", "requestState"];

impl BoundRequest {
    pub(crate) fn new(method: &'static str, params: &Option<Value>) -> Self {
        let mut text = Vec::with_capacity(128);
        write_canonical(&mut text, params.as_ref().unwrap_or(&Value::Null), &UNBOUND);
        BoundRequest { method, params: BoundParams::Canonical(text) }
    }

    /// A `tools/call` whose params are its name and its arguments' text (which read as a value),
    /// less what the request is not bound to.
    pub(crate) fn call(name: &str, arguments: Option<&str>) -> Self {
        let mut text = String::with_capacity(name.len() + arguments.map_or(0, str::len));
        text.push_str(name);
        text.push_str(arguments.unwrap_or_default());
        let params = BoundParams::Call { text, name_len: name.len(), has_arguments: arguments.is_some() };
        BoundRequest { method: "tools/call", params }
    }

    /// Binds to another `tools/call` (see [`call`](Self::call)), in the text this one was bound in.
    pub(crate) fn bind_call(&mut self, name: &str, arguments: Option<&str>) {
        let BoundParams::Call { text, name_len, has_arguments } = &mut self.params else {
            return *self = Self::call(name, arguments);
        };
        // Bound to a call already (only `call` binds so): its method is `tools/call`.
        text.clear();
        text.push_str(name);
        text.push_str(arguments.unwrap_or_default());
        (*name_len, *has_arguments) = (name.len(), arguments.is_some());
    }

    /// The digest a state carries.
    pub(crate) fn digest(&self) -> String {
        let written;
        let params = match &self.params {
            BoundParams::Canonical(text) => text,
            BoundParams::Call { text, name_len, has_arguments } => {
                let (name, arguments) = text.split_at(*name_len);
                let mut params = Map::new();
                params.insert("name".to_owned(), Value::String(name.to_owned()));
                if *has_arguments {
                    // Read as a value when the call was read: it reads again.
                    params.insert("arguments".to_owned(), serde_json::from_str(arguments).unwrap_or_default());
                }
                let mut text = Vec::with_capacity(128);
                write_canonical(&mut text, &Value::Object(params), &[]);
                written = text;
                &written
            }
        };
        let mut hasher = Sha256::new();
        hasher.update(self.method.as_bytes());
        hasher.update([0]);
        hasher.update(params);
        URL_SAFE_NO_PAD.encode(hasher.finalize())
    }
}

/// `value` as compact JSON with the keys of every object sorted, less the members of the outer
/// object named in `skipped`.
fn write_canonical(out: &mut Vec<u8>, value: &Value, skipped: &[&str]) {
    match value {
        Value::Object(map) => {
            // Sorted on the stack when they fit: a request's objects have a handful of members.
            let mut on_stack = [("", &NULL); ON_STACK];
            let mut on_heap = Vec::new();
            let kept = map.iter().filter(|(k, _)| !skipped.contains(&k.as_str())).map(|(k, v)| (k.as_str(), v));
            let members = match map.len() <= ON_STACK {
                true => {
                    let mut n = 0;
                    for member in kept {
                        on_stack[n] = member;
                        n += 1;
                    }
                    &mut on_stack[..n]
                }
                false => {
                    on_heap.extend(kept);
                    &mut on_heap[..]
                }
            };
            members.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json(out, key);
                out.push(b':');
                write_canonical(out, value, &[]);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(out, item, &[]);
            }
            out.push(b']');
        }
        scalar => write_json(out, scalar),
    }
}

/// The most members of an object sorted without allocating.
const ON_STACK: usize = 8;
static NULL: Value = Value::Null;

fn write_json<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    // Strings and JSON values always serialize, and writing to memory cannot fail.
    let _ = serde_json::to_writer(out, value);
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn request_digest(method: &'static str, params: Value) -> String {
        BoundRequest::new(method, &Some(params)).digest()
    }

    #[test]
    fn a_sealed_state_opens_only_for_its_request_and_key() {
        let key = StateKey::random();
        let request = request_digest("tools/call", json!({ "name": "t", "arguments": { "a": 1, "b": 2 } }));
        let answers: Map<String, Value> = [("k".to_owned(), json!({ "action": "accept" }))].into_iter().collect();
        let state = key.seal(&request, &answers);
        assert_eq!(key.open(&state, &request), Ok(answers));

        let reordered = request_digest("tools/call", json!({ "arguments": { "b": 2, "a": 1 }, "name": "t" }));
        assert_eq!(reordered, request, "key order is not part of the request");
        let other = request_digest("tools/call", json!({ "name": "t", "arguments": { "a": 2, "b": 2 } }));
        assert_eq!(key.open(&state, &other), Err(StateError::Foreign));
        assert_eq!(key.open(&format!("{state}-TAMPERED"), &request), Err(StateError::Tampered));
        assert_eq!(StateKey::random().open(&state, &request), Err(StateError::Tampered));
        assert_eq!(key.open("not a state", &request), Err(StateError::Tampered));
    }

    #[test]
    fn a_request_is_bound_as_sorted_compact_json_less_what_changes_between_rounds() {
        let params = json!({ "name": "t", "arguments": { "b": [1, { "d": 1, "c": "x\"" }], "a": null },
                             "_meta": { "k": 1 }, "requestState": "s", "inputResponses": {} });
        let canonical = |bound: BoundRequest| match bound.params {
            BoundParams::Canonical(text) => String::from_utf8(text).unwrap(),
            BoundParams::Call { .. } => unreachable!("read as a value"),
        };
        assert_eq!(
            canonical(BoundRequest::new("tools/call", &Some(params))),
            r#"{"arguments":{"a":null,"b":[1,{"c":"x\"","d":1}]},"name":"t"}"#
        );
        assert_eq!(canonical(BoundRequest::new("tools/call", &None)), "null");
        let escaped = json!({ "k\u{1}": "a\\b\n\u{7f}é" });
        let mut text = Vec::new();
        write_canonical(&mut text, &escaped, &[]);
        assert_eq!(text, serde_json::to_vec(&escaped).unwrap(), "strings are written as serde_json writes them");
        let many: Map<String, Value> = (0..12).rev().map(|i| (format!("k{i:02}"), json!(i))).collect();
        let mut text = Vec::new();
        write_canonical(&mut text, &Value::Object(many.clone()), &["k03"]);
        let sorted: std::collections::BTreeMap<_, _> = many.into_iter().filter(|(k, _)| k != "k03").collect();
        assert_eq!(text, serde_json::to_vec(&sorted).unwrap(), "more members than fit on the stack");
    }

    /// A call bound from its text digests as the same call read as a value.
    #[test]
    fn a_call_read_from_its_text_is_bound_as_its_value_is() {
        let arguments = [None, Some(r#"{"b":[1,{"d":1.50,"c":"x\"\u00e9"}],"a":null}"#), Some("{}")];
        for arguments in arguments {
            let mut params = json!({ "name": "t\u{1}é", "_meta": { "k": 1 } });
            if let Some(text) = arguments {
                params["arguments"] = serde_json::from_str(text).unwrap();
            }
            let by_value = BoundRequest::new("tools/call", &Some(params.clone())).digest();
            assert_eq!(BoundRequest::call("t\u{1}é", arguments).digest(), by_value, "{arguments:?}");
            // Bound again, from another call or from a request read as a value, it is the new call.
            for mut bound in [BoundRequest::call("other", Some(r#"{"z":[1,2,3]}"#)), BoundRequest::new("x", &None)] {
                bound.bind_call("t\u{1}é", arguments);
                assert_eq!(bound.digest(), by_value, "{arguments:?}");
            }
        }
    }

    #[test]
    fn instances_given_one_secret_share_the_key() {
        let (a, b) =
            (StateKey::from_secret(b"0123456789abcdef").unwrap(), StateKey::from_secret(b"0123456789abcdef").unwrap());
        let state = a.seal("r", &Map::new());
        assert_eq!(b.open(&state, "r"), Ok(Map::new()));
        assert!(StateKey::from_secret(b"short").is_none());
    }
}
