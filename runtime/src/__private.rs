//! What the `#[operation]` expansion calls. Not a public API: names here may change at any time.

pub use crate::operation::{BoxFuture, OperationMeta, StaticRestRoute};
pub use crate::outcome::{IntoOutcome, Outcome};
pub use serde_json::Value;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::outcome::{ErrorKind, Failure, ToolOutput};

/// The argument type of an operation that takes none: an empty object.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

impl JsonSchema for NoArgs {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NoArgs".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "object", "properties": {}, "additionalProperties": false })
    }
}

/// The inputSchema of an argument type.
pub fn input_schema<T: JsonSchema>() -> Value {
    crate::schema::input_schema_of::<T>()
}

/// The outputSchema implied by an operation's return type.
pub fn output_schema<R: IntoOutcome>() -> Option<Value> {
    R::output_schema()
}

/// The outputSchema of `output = T`.
pub fn explicit_output_schema<T: ToolOutput>() -> Option<Value> {
    T::output_schema()
}

/// Deserialises validated arguments; what serde still refuses is an invalid-input failure.
pub fn parse_args<T: DeserializeOwned>(args: Value) -> Result<T, Outcome> {
    serde_json::from_value(args).map_err(|e| {
        Err(Failure {
            kind: ErrorKind::InvalidInput,
            body: serde_json::json!({ "error": "Invalid arguments", "message": e.to_string() }),
        })
    })
}

/// Turns what the function returned into the table's outcome.
pub fn into_outcome<R: IntoOutcome>(r: R) -> Outcome {
    r.into_outcome()
}
