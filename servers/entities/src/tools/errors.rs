//! The failures a tool reports, each with a stable code (`error`), a message, and what it concerns.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use tooltable::{ErrorBody, ErrorKind};

use crate::repository::LoadError;

#[derive(Debug, Clone, PartialEq)]
pub enum EntityError {
    UnknownEntity(String),
    NotAllowed(String),
    ObjectNotFound { entity: String, id: String },
    Repository(LoadError),
}

impl EntityError {
    pub fn code(&self) -> &'static str {
        match self {
            EntityError::UnknownEntity(_) => "unknown_entity",
            EntityError::NotAllowed(_) => "entity_not_allowed",
            EntityError::ObjectNotFound { .. } => "object_not_found",
            EntityError::Repository(_) => "repository_error",
        }
    }

    fn body(&self) -> Value {
        let code = self.code();
        match self {
            EntityError::UnknownEntity(entity) => json!({
                "error": code,
                "message": format!("there is no entity {entity:?}; entity_list gives the visible ones"),
                "entity": entity,
            }),
            EntityError::NotAllowed(entity) => json!({
                "error": code,
                "message": format!("the entity {entity:?} is not in this server's allow-list"),
                "entity": entity,
            }),
            EntityError::ObjectNotFound { entity, id } => json!({
                "error": code,
                "message": format!("{entity} has no record with the id {id:?}; object_list gives the ids there are"),
                "entity": entity,
                "id": id,
            }),
            EntityError::Repository(e) => json!({
                "error": code,
                "message": e.to_string(),
                "file": e.file,
                "reason": e.reason,
            }),
        }
    }
}

/// Every failure's body: its stable code, a message, and what it concerns. Part of each tool's
/// outputSchema, so a client that validates `structuredContent` accepts a failure's body.
impl JsonSchema for EntityError {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EntityError".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A failure: `error` is its stable code, `message` says why; `entity`, `id`, `file` and `reason` name what it concerns.",
            "type": "object",
            "properties": {
                "error": { "enum": ["unknown_entity", "entity_not_allowed", "object_not_found", "repository_error"] },
                "message": { "type": "string" },
                "entity": { "type": "string" },
                "id": { "type": "string" },
                "file": { "type": "string" },
                "reason": { "type": "string" },
            },
            "required": ["error", "message"],
        })
    }
}

impl Serialize for EntityError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.body().serialize(s)
    }
}

impl ErrorBody for EntityError {
    fn kind(&self) -> ErrorKind {
        match self {
            // MCP already tells a blocked entity from an unknown one, so REST does too.
            EntityError::NotAllowed(_) => ErrorKind::Forbidden,
            EntityError::UnknownEntity(_) | EntityError::ObjectNotFound { .. } => ErrorKind::NotFound,
            EntityError::Repository(_) => ErrorKind::Internal,
        }
    }
}

impl From<LoadError> for EntityError {
    fn from(e: LoadError) -> Self {
        EntityError::Repository(e)
    }
}
