//! The questions a tool asks the client (elicitation, sampling, its roots), and why one
//! went unanswered.

use std::borrow::Cow;

use serde_json::{Value, json};

use crate::api::rpc::RpcError;

/// Why a request to the client gave no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientRequestError {
    /// The client did not declare the capability this request needs.
    NotSupported {
        /// The capability, as a path (`elicitation.form`).
        capability: &'static str,
    },
    /// The call runs outside a session (the `call` command, REST), so there is no client to ask.
    NoSession,
    /// The client answered with a JSON-RPC error.
    Rejected(RpcError),
    /// The session ended before the client answered.
    Closed,
}

impl std::fmt::Display for ClientRequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientRequestError::NotSupported { capability } => {
                write!(f, "the client did not declare the `{capability}` capability")
            }
            ClientRequestError::NoSession => f.write_str("this call has no client session to ask"),
            ClientRequestError::Rejected(e) => write!(f, "the client refused: {e}"),
            ClientRequestError::Closed => f.write_str("the session closed before the client answered"),
        }
    }
}

impl std::error::Error for ClientRequestError {}

/// One question a tool asks the client: elicitation, sampling or its roots.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequest {
    method: Cow<'static, str>,
    params: Value,
    /// The client capability it needs, written as a path (`elicitation.form`), or "" for none.
    capability: &'static str,
}

impl InputRequest {
    /// `elicitation/create` in form mode. `mode` is left out: form is the default, and revisions
    /// before 2025-11-25 do not know the field.
    pub fn elicit_form(message: &str, requested_schema: Value) -> Self {
        let params = json!({ "message": message, "requestedSchema": requested_schema });
        InputRequest { method: Cow::Borrowed("elicitation/create"), params, capability: "elicitation.form" }
    }

    /// `elicitation/create` in URL mode.
    pub fn elicit_url(message: &str, url: &str, elicitation_id: &str) -> Self {
        let params = json!({ "mode": "url", "message": message, "url": url, "elicitationId": elicitation_id });
        InputRequest { method: Cow::Borrowed("elicitation/create"), params, capability: "elicitation.url" }
    }

    /// `sampling/createMessage`; offering the model tools needs `sampling.tools`.
    pub fn create_message(params: Value) -> Self {
        let with_tools = params.get("tools").is_some() || params.get("toolChoice").is_some();
        let capability = if with_tools { "sampling.tools" } else { "sampling" };
        InputRequest { method: Cow::Borrowed("sampling/createMessage"), params, capability }
    }

    /// `roots/list`.
    pub fn list_roots() -> Self {
        InputRequest { method: Cow::Borrowed("roots/list"), params: json!({}), capability: "roots" }
    }

    /// A request of any method, which needs no capability.
    pub(crate) fn raw(method: &str, params: Value) -> Self {
        InputRequest { method: Cow::Owned(method.to_owned()), params, capability: "" }
    }

    /// The method the question is asked with.
    pub(crate) fn method(&self) -> &str {
        &self.method
    }

    /// The capability it needs, as a path, or "" for none.
    pub(crate) fn capability(&self) -> &'static str {
        self.capability
    }

    /// Whether the client declared what this question needs. An `elicitation` naming no mode has
    /// form mode.
    pub(crate) fn declared(&self, capabilities: &Value) -> bool {
        match self.capability {
            "" => true,
            "elicitation.form" => {
                capabilities.get("elicitation").is_some_and(|e| e.get("form").is_some() || e.get("url").is_none())
            }
            path => path.split('.').try_fold(capabilities, |c, key| c.get(key)).is_some(),
        }
    }

    /// The params as the revision sends them: 2026-07-28 has no `elicitationId`.
    pub(crate) fn params(&self, stateless: bool) -> Value {
        let mut params = self.params.clone();
        if stateless && let Some(p) = params.as_object_mut() {
            p.remove("elicitationId");
        }
        params
    }
}
