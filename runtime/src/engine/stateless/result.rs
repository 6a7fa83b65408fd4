//! The shape of every 2026-07-28 result: `resultType` first, the value's own fields, the
//! server's identity in `_meta`, and cache hints on the results a client may cache.

use serde::Serialize;
use serde_json::value::RawValue;

use super::RequestMeta;
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

/// A result as the stateless revision sends it.
#[derive(Serialize)]
pub(crate) struct StatelessResult<'a, T> {
    #[serde(rename = "resultType")]
    result_type: &'static str,
    #[serde(flatten)]
    value: T,
    /// [`result_meta`], written once.
    #[serde(rename = "_meta")]
    meta: &'a RawValue,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
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
