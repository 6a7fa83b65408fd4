//! The failures a tool reports, each with the stable body the seed's "Result shape" gives:
//! schema and constraint violations carry their parsed list, the rest a clear message.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use tooltable::{ErrorBody, ErrorKind};

use crate::engine::budget::Stopped;
use crate::engine::cycle::CycleError;
use crate::engine::findings::Findings;
use crate::engine::model::ModelFailure;
use crate::engine::schema::Violation;
use crate::engine::trace::ConstraintFailure;

#[derive(Debug, Clone, PartialEq)]
pub enum ModelError {
    NotFound(String),
    /// A sandbox session's model, named by a call of no session.
    Unauthenticated(String),
    /// Nothing at an address, or no recorded state at an instant.
    Missing(String),
    InvalidSpec(Findings),
    Schema(Vec<Violation>),
    Constraint(Vec<ConstraintFailure>),
    TooLarge(String),
    Invalid(String),
    /// A JSON Patch that does not apply; the message names the operation.
    InvalidPatch(String),
    /// An evolution's `expectedVersion` is not the live version.
    VersionConflict {
        expected: String,
        actual: String,
    },
    /// A SpecEvolution that does not apply, or leaves an invalid spec.
    InvalidEvolution(String),
    /// An evolution whose schema refuses values the model holds: the first ten.
    Stranded {
        message: String,
        incompatibilities: Vec<Violation>,
    },
    /// The document would pass what one model, or all of them, may hold.
    StateTooLarge(String),
    /// The registry holds as many models as it may.
    TooMany(String),
    /// A durable server already holds a model under the spec's id.
    Duplicate(String),
    /// The cycle ran out of time or was cancelled, and was undone.
    Stopped(Stopped),
    /// The durable store failed: the call changed nothing.
    Store(String),
    Internal(String),
}

impl ModelError {
    /// The message a person reads, as the body's `message` (or `error`) says it.
    pub fn message(&self) -> String {
        let body = self.body();
        body.get("message").or_else(|| body.get("error")).and_then(Value::as_str).unwrap_or_default().to_owned()
    }

    fn body(&self) -> Value {
        match self {
            ModelError::NotFound(id) => json!({
                "error": "Model not found",
                "id": id,
                "message": format!("there is no model {id:?}; list_models gives the ids there are"),
            }),
            ModelError::Unauthenticated(id) => json!({
                "error": "Session required",
                "id": id,
                "message": format!("the model {id:?} is a sandbox session's: send that session's X-Session-Token"),
            }),
            ModelError::Missing(m) => json!({ "error": "Not found", "message": m }),
            ModelError::InvalidSpec(f) => {
                json!({ "error": "Invalid spec", "errors": f.errors, "warnings": f.warnings })
            }
            ModelError::Schema(v) => json!({ "error": "Schema violation", "violations": v }),
            ModelError::Constraint(v) => json!({ "error": "Constraint violation", "violations": v }),
            ModelError::TooLarge(m) => json!({ "error": "Value too large", "message": m }),
            ModelError::Invalid(m) => json!({ "error": m }),
            ModelError::Duplicate(id) => json!({
                "error": "Duplicate id",
                "id": id,
                "message": format!("a model {id:?} is stored already; delete it, or give the spec another id"),
            }),
            ModelError::VersionConflict { expected, actual } => json!({
                "error": "Version conflict",
                "expected": expected,
                "actual": actual,
                "message": format!("the model is at version {actual}, not {expected}: read it again and retry"),
            }),
            ModelError::InvalidEvolution(m) => json!({ "error": "Invalid evolution", "message": m }),
            ModelError::Stranded { message, incompatibilities } => {
                let list: Vec<Value> =
                    incompatibilities.iter().map(|v| json!({ "path": v.path, "message": v.message })).collect();
                json!({ "error": "Incompatible evolution", "message": message, "incompatibilities": list })
            }
            ModelError::InvalidPatch(m) => {
                json!({ "error": "Invalid patch", "message": format!("Invalid patch: {m}") })
            }
            ModelError::StateTooLarge(m) => json!({ "error": "State too large", "message": m }),
            ModelError::TooMany(m) => json!({ "error": "Too many models", "message": m }),
            ModelError::Stopped(why @ Stopped::TimeUp(_)) => {
                json!({ "error": "Time limit exceeded", "message": why.to_string() })
            }
            ModelError::Stopped(why @ Stopped::Cancelled) => {
                json!({ "error": "Cancelled", "message": why.to_string() })
            }
            ModelError::Store(m) => json!({ "error": "Store error", "message": m }),
            ModelError::Internal(m) => json!({ "error": "Internal error", "message": m }),
        }
    }
}

impl Serialize for ModelError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.body().serialize(s)
    }
}

/// The bodies a client can rely on: the three structured failures an agent reacts to, and the
/// message every other failure carries. Part of each tool's outputSchema, so a client that
/// validates `structuredContent` accepts an error's parsed body.
impl JsonSchema for ModelError {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ModelError".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let list = |error: &str, field: &str, item: Value| {
            json!({
                "type": "object",
                "properties": { "error": { "const": error }, field: { "type": "array", "items": item } },
                "required": ["error", field],
            })
        };
        let strings = |names: &[&str]| {
            let properties: serde_json::Map<String, Value> =
                names.iter().map(|n| ((*n).to_owned(), json!({ "type": "string" }))).collect();
            json!({ "type": "object", "properties": properties, "required": names })
        };
        let constraint = json!({
            "type": "object",
            "properties": {
                "constraintId": { "type": "string" },
                "message": { "type": "string" },
                "policy": { "type": "string" },
            },
            "required": ["constraintId", "message", "policy"],
        });
        let finding = strings(&["location", "message"]);
        let mut invalid_spec = list("Invalid spec", "errors", finding.clone());
        let mut conflict = strings(&["expected", "actual", "message"]);
        conflict["properties"]["error"] = json!({ "const": "Version conflict" });
        conflict["required"] = json!(["error", "expected", "actual"]);
        let mut stranded = list("Incompatible evolution", "incompatibilities", strings(&["path", "message"]));
        stranded["properties"]["message"] = json!({ "type": "string" });
        invalid_spec["properties"]["warnings"] = json!({ "type": "array", "items": finding });
        schemars::json_schema!({
            "description": "A failure. `error` names it; schema and constraint violations list what failed, an invalid spec its findings, a version conflict the expected and actual versions, an incompatible evolution the values it would strand; every other failure says why in `message`.",
            "anyOf": [
                list("Schema violation", "violations", strings(&["path", "keyword", "message"])),
                list("Constraint violation", "violations", constraint),
                invalid_spec,
                conflict,
                stranded,
                {
                    "type": "object",
                    "properties": { "error": { "type": "string" }, "message": { "type": "string" }, "id": { "type": "string" } },
                    "required": ["error"],
                },
            ],
        })
    }
}

impl ErrorBody for ModelError {
    fn kind(&self) -> ErrorKind {
        match self {
            ModelError::NotFound(_) | ModelError::Missing(_) => ErrorKind::NotFound,
            ModelError::Unauthenticated(_) => ErrorKind::Unauthorized,
            ModelError::TooLarge(_) | ModelError::StateTooLarge(_) => ErrorKind::TooLarge,
            ModelError::Constraint(_) | ModelError::VersionConflict { .. } | ModelError::Duplicate(_) => {
                ErrorKind::Conflict
            }
            ModelError::TooMany(_) => ErrorKind::TooMany,
            ModelError::Store(_) | ModelError::Internal(_) => ErrorKind::Internal,
            _ => ErrorKind::InvalidInput,
        }
    }
}

impl From<ModelFailure> for ModelError {
    fn from(f: ModelFailure) -> Self {
        match f {
            ModelFailure::InvalidSpec(findings) => ModelError::InvalidSpec(findings),
            ModelFailure::Cycle(CycleError::Schema(v)) => ModelError::Schema(v),
            ModelFailure::Cycle(CycleError::Constraint(v)) => ModelError::Constraint(v),
            ModelFailure::Cycle(CycleError::TooLarge(m)) => ModelError::TooLarge(m),
            ModelFailure::Cycle(CycleError::Library(m)) => ModelError::Invalid(m),
            ModelFailure::Cycle(CycleError::Stopped(why)) => ModelError::Stopped(why),
            ModelFailure::BadPath(m) => ModelError::Invalid(m),
            ModelFailure::StateTooLarge(m) => ModelError::StateTooLarge(m),
            ModelFailure::Evolution(m) => ModelError::InvalidEvolution(m),
            ModelFailure::Stranded { message, incompatibilities } => {
                ModelError::Stranded { message, incompatibilities }
            }
        }
    }
}
