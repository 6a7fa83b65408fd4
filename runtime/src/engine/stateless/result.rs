//! The shape of every 2026-07-28 result: `resultType` first, the value's own fields, the
//! server's identity in `_meta`, and cache hints on the results a client may cache.

use serde::Serialize;
use serde_json::value::RawValue;

use super::RequestMeta;
use crate::engine::jsonrpc::{self, RequestId};
use crate::engine::server::ServerInfo;

/// How long a client may reuse a cacheable result, and whether shared caches may hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CacheHint {
    /// Milliseconds; 0 means stale at once (revalidate every time).
    #[serde(rename = "ttlMs")]
    pub ttl_ms: u64,
    /// Who may share a cached result.
    #[serde(rename = "cacheScope")]
    pub scope: CacheScope,
}

/// `public`: the same for every caller; `private`: only for the caller's own authorization context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Any cache may hold it for any caller.
    Public,
    /// Only the caller's own cache.
    Private,
}

impl Default for CacheHint {
    /// Stale at once and private: safe for a server whose lists change at run time and whose
    /// resources may differ per caller, until it says otherwise.
    fn default() -> Self {
        CacheHint { ttl_ms: 0, scope: CacheScope::Private }
    }
}

/// A result as the stateless revision sends it: `resultType`, the value's own members, `_meta`,
/// then any cache hints.
pub(crate) struct StatelessResult<'a, T> {
    result_type: &'static str,
    value: T,
    /// [`result_meta`], written once.
    meta: &'a RawValue,
    cache: Option<CacheHint>,
}

#[derive(Serialize)]
struct ResultMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    server_info: &'a ServerInfo,
}

/// The `_meta` of every result of a server: its identity.
pub(crate) fn result_meta(info: &ServerInfo) -> Box<RawValue> {
    // A struct of two strings always serializes.
    serde_json::value::to_raw_value(&ResultMeta { server_info: info }).unwrap_or_default()
}

impl<'a, T: Serialize> StatelessResult<'a, T> {
    /// A complete result; cache hints on a request for a cacheable one.
    pub(crate) fn complete(value: T, request: &RequestMeta, meta: &'a RawValue, cache: CacheHint) -> Self {
        StatelessResult { result_type: "complete", value, meta, cache: request.cacheable.then_some(cache) }
    }

    /// A `CreateTaskResult`: the task that will compute the result; never cached.
    pub(crate) fn task(value: T, meta: &'a RawValue) -> Self {
        StatelessResult { result_type: "task", value, meta, cache: None }
    }

    /// A round that needs the client's input first: never cached.
    pub(crate) fn input_required(value: T, meta: &'a RawValue) -> Self {
        StatelessResult { result_type: "input_required", value, meta, cache: None }
    }
}

impl<T> StatelessResult<'_, T> {
    /// Appends the result's JSON, the value's members written by `write_value` (the value's
    /// object, which is spliced in): each member as it is written once, in no map in between.
    pub(crate) fn write_json(
        &self,
        out: &mut Vec<u8>,
        write_value: impl FnOnce(&T, &mut Vec<u8>) -> serde_json::Result<()>,
    ) -> serde_json::Result<()> {
        // The result types are plain words: nothing to escape.
        out.extend_from_slice(br#"{"resultType":""#);
        out.extend_from_slice(self.result_type.as_bytes());
        out.push(b'"');
        let start = out.len();
        write_value(&self.value, out)?;
        // The value's members continue the result's object: its brace becomes a comma, and it is
        // left open.
        match &out[start..] {
            b"{}" => out.truncate(start),
            [b'{', .., b'}'] => {
                out[start] = b',';
                out.pop();
            }
            _ => return Err(serde::ser::Error::custom("a result's value is an object")),
        }
        out.extend_from_slice(br#","_meta":"#);
        out.extend_from_slice(self.meta.get().as_bytes());
        if let Some(cache) = &self.cache {
            out.extend_from_slice(br#","ttlMs":"#);
            serde_json::to_writer(&mut *out, &cache.ttl_ms)?;
            out.extend_from_slice(br#","cacheScope":"#);
            serde_json::to_writer(&mut *out, &cache.scope)?;
        }
        out.push(b'}');
        Ok(())
    }

    /// The response to request `id` that carries this result, the value's members written by
    /// `write_value` (see [`write_json`](Self::write_json)).
    pub(crate) fn response(
        &self,
        id: &RequestId,
        write_value: impl FnOnce(&T, &mut Vec<u8>) -> serde_json::Result<()>,
    ) -> String {
        jsonrpc::result_written_by(id, |out| self.write_json(out, write_value))
    }
}

/// Writes a value as serde does: for [`StatelessResult::write_json`] of a value with no quicker way.
pub(crate) fn serialized<T: Serialize>(value: &T, out: &mut Vec<u8>) -> serde_json::Result<()> {
    serde_json::to_writer(out, value)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn written<T: Serialize>(value: &T, cache: Option<CacheHint>) -> serde_json::Result<String> {
        let meta = RawValue::from_string(r#"{"s":1}"#.to_owned()).unwrap();
        let result = StatelessResult { result_type: "complete", value, meta: &meta, cache };
        let mut out = Vec::new();
        result.write_json(&mut out, serialized)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn the_value_s_members_come_between_the_result_type_and_the_meta() {
        assert_eq!(
            written(&json!({ "b": [1, {}], "a": "}" }), None).unwrap(),
            r#"{"resultType":"complete","b":[1,{}],"a":"}","_meta":{"s":1}}"#
        );
        let cache = CacheHint { ttl_ms: 5, scope: CacheScope::Public };
        assert_eq!(
            written(&json!({}), Some(cache)).unwrap(),
            r#"{"resultType":"complete","_meta":{"s":1},"ttlMs":5,"cacheScope":"public"}"#
        );
        assert!(written(&Value::Null, None).is_err() && written(&json!([1]), None).is_err());
    }
}
