//! Documents of the authorization server (its metadata, its keys), fetched with the forwarding
//! client: one deadline for the whole exchange, the body read up to a bound, plain `http://` only.

use std::time::Duration;

use hyper::{Method, Uri};
use serde_json::{Map, Value};

use crate::forward::{self, Client};

/// The deadline of one fetch, connecting included.
pub(super) const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest document read (metadata, a key set, an introspection answer).
pub(super) const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// Why a document could not be had; it names the URL, never a credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FetchError(pub(super) String);

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The client of the server `url` is on, and the path and query to ask it for.
pub(super) fn client_for(url: &str) -> Result<(Client, String), FetchError> {
    let invalid = |reason: &dyn std::fmt::Display| FetchError(format!("{url} is not a usable URL: {reason}"));
    let uri: Uri = url.parse().map_err(|e| invalid(&e))?;
    let authority = uri.authority().ok_or_else(|| invalid(&"it names no host"))?;
    let base = format!("{}://{authority}", uri.scheme_str().unwrap_or_default());
    let options =
        forward::Options { timeout: FETCH_TIMEOUT, max_response_bytes: MAX_DOCUMENT_BYTES, ..Default::default() };
    let client = Client::new(&base, &options).map_err(|e| invalid(&e))?;
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
    Ok((client, path))
}

/// The JSON object at `url` (a 200 answer), or why there is none.
pub(super) async fn json_object(url: &str) -> Result<Map<String, Value>, FetchError> {
    let (client, path) = client_for(url)?;
    let answer = client.send(&Method::GET, &path, None).await.map_err(|e| FetchError(e.to_string()))?;
    object(url, answer.status, &answer.body)
}

/// The body of an answer from `url`, when it is a 200 with a JSON object.
pub(super) fn object(url: &str, status: u16, body: &[u8]) -> Result<Map<String, Value>, FetchError> {
    if status != 200 {
        return Err(FetchError(format!("{url} answered {status}")));
    }
    match serde_json::from_slice(body) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(FetchError(format!("{url} did not answer a JSON object"))),
    }
}
