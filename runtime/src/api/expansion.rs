//! What the `#[tool]` expansion calls. Not a public API: names here may change at any time.

pub use crate::api::json_text::JsonText;
pub use crate::api::output::{Rendered, Returned};
pub use crate::api::tool::{BoxFuture, StaticRestRoute, ToolMeta, TypedArguments};
pub use serde_json::Value;

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::api::error::{Error, ErrorKind};
use crate::api::output::{IntoOutput, Output};

/// What a tool's call comes to.
pub type Outcome = Result<Output, Error>;

/// What a tool's call read from text comes to: its success written to JSON text when asked.
pub type RenderedOutcome = Result<Rendered, Error>;

/// The argument type of a tool that takes none: an empty object.
#[derive(Debug, serde::Deserialize)]
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

/// What a tool's argument type must be to be read from the call's JSON.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's argument type: it is not `serde::Deserialize`",
    note = "derive `serde::Deserialize` for it: the arguments are parsed from the call's JSON object"
)]
pub trait ParsedArgs: DeserializeOwned {}

impl<T: DeserializeOwned> ParsedArgs for T {}

/// What a tool's argument type must be to give the tool its inputSchema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot describe a tool's arguments: it is not `schemars::JsonSchema`",
    note = "derive `schemars::JsonSchema` for it, or give the schema with `input_schema = ...`"
)]
pub trait DescribedArgs: JsonSchema {}

impl<T: JsonSchema> DescribedArgs for T {}

/// The inputSchema of an argument type.
pub fn input_schema<T: DescribedArgs>() -> Value {
    crate::api::schema::input_schema_of::<T>()
}

/// Finds the error type's schema, when it has one, by autoref specialisation: for
/// `ErrorSchemaProbe<Result<T, E>>` with `E: JsonSchema` the method of [`StatedErrorSchema`]
/// applies; for any other type only [`NoErrorSchema`]'s, one reference further, does.
#[derive(Debug)]
pub struct ErrorSchemaProbe<R>(pub PhantomData<R>);

pub trait StatedErrorSchema {
    fn error_schema(&self) -> Option<Value>;
}

impl<T, E: JsonSchema> StatedErrorSchema for ErrorSchemaProbe<Result<T, E>> {
    fn error_schema(&self) -> Option<Value> {
        Some(crate::api::schema::schema_of::<E>())
    }
}

pub trait NoErrorSchema {
    fn error_schema(&self) -> Option<Value>;
}

impl<R> NoErrorSchema for &ErrorSchemaProbe<R> {
    fn error_schema(&self) -> Option<Value> {
        None
    }
}

/// The outputSchema implied by a tool's return type.
pub fn output_schema<R: Returned>() -> Option<Value> {
    R::output_schema()
}

/// The outputSchema of `output = T`.
pub fn explicit_output_schema<T: IntoOutput>() -> Option<Value> {
    T::output_schema()
}

/// Deserialises validated arguments; what serde still refuses is an invalid-input failure.
pub fn parse_args<T: ParsedArgs>(args: Value) -> Result<T, Outcome> {
    serde_json::from_value(args).map_err(|e| {
        Err(Error {
            kind: ErrorKind::InvalidInput,
            body: serde_json::json!({ "error": "Invalid arguments", "message": e.to_string() }),
        })
    })
}

/// Reads the arguments object at the start of `text` straight into `T`, for a tool whose schema
/// serde enforces whole; with the length of its text.
pub fn parse_text<T: ParsedArgs + Send + 'static>(text: &str) -> Option<(TypedArguments, usize)> {
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<T>();
    let args = values.next()?.ok()?;
    Some((TypedArguments(Box::new(args)), values.byte_offset()))
}

/// The arguments [`parse_text`] read as `T`, when they are of that type.
pub fn typed<T: 'static>(args: TypedArguments) -> Option<T> {
    args.0.downcast().ok().map(|args| *args)
}

/// Turns what the function returned into the table's outcome, its success written straight to
/// JSON text when `written` (no layer is to see it as a value).
pub fn into_rendered<R: Returned>(r: R, written: bool) -> RenderedOutcome {
    match written {
        true => r.into_rendered(),
        false => r.into_result().map(Rendered::Output),
    }
}

/// The outcome of a call not written to text, as [`Tool::call`](crate::tool::Tool::call) gives it.
pub fn into_outcome(rendered: RenderedOutcome) -> Outcome {
    rendered.map(Rendered::into_output)
}
