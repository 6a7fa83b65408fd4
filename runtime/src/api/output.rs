//! What a tool gives back on success: a JSON value, or content blocks given as they are.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::api::content::Content;
use crate::api::error::{Error, unserializable};
use crate::api::json_text::JsonText;

/// The successful result of a tool: a JSON value (its text block and `structuredContent`), or
/// content blocks given as they are.
///
/// ```
/// use serde_json::json;
/// use tooltable::content::{Content, ContentBlock};
/// use tooltable::tool::{IntoOutput, Output};
///
/// assert_eq!(json!({ "sum": 3 }).into_output(), Ok(Output::Json(json!({ "sum": 3 }))));
/// let picture = Content::from(ContentBlock::text("a dot"));
/// assert_eq!(picture.clone().into_output(), Ok(Output::Content(picture)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// A value: sent as its pretty-printed text, and as `structuredContent` when it is an object.
    Json(Value),
    /// Content blocks, sent as they are.
    Content(Content),
}

/// A tool's success as the engine takes it when nothing needs it as a value: written straight
/// to JSON text where it can be, else an [`Output`].
#[doc(hidden)]
#[derive(Debug)]
pub enum Rendered {
    /// Content blocks, or a value only the value path writes as it should be written.
    Output(Output),
    /// The value's text, compact and pretty-printed.
    Json(JsonText),
}

impl Rendered {
    /// As an [`Output`]: written text read back as a value.
    pub(crate) fn into_output(self) -> Output {
        match self {
            Rendered::Output(output) => output,
            Rendered::Json(text) => Output::Json(text.to_value()),
        }
    }
}

/// A success type a tool may return: any `Serialize + JsonSchema` value, or [`Content`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's success type",
    note = "return a type that is `Serialize + JsonSchema`, or `tooltable::content::Content`"
)]
pub trait IntoOutput {
    /// The value as the client will see it; a value serde cannot write is an internal failure.
    fn into_output(self) -> Result<Output, Error>;
    /// The outputSchema this type declares: its schema when that is an object, else none.
    fn output_schema() -> Option<Value>;

    /// The value as the client will see it, written straight to JSON text where it can be.
    #[doc(hidden)]
    fn into_rendered(self) -> Result<Rendered, Error>
    where
        Self: Sized,
    {
        self.into_output().map(Rendered::Output)
    }
}

impl<T: Serialize + JsonSchema> IntoOutput for T {
    fn into_output(self) -> Result<Output, Error> {
        let mut v = serde_json::to_value(self).map_err(|e| unserializable("result", &e))?;
        crate::api::numbers::normalize(&mut v);
        Ok(Output::Json(v))
    }
    fn output_schema() -> Option<Value> {
        crate::api::schema::object_schema_of::<T>()
    }
    fn into_rendered(self) -> Result<Rendered, Error> {
        match JsonText::of(&self) {
            Some(text) => Ok(Rendered::Json(text)),
            None => self.into_output().map(Rendered::Output),
        }
    }
}

impl IntoOutput for Content {
    fn into_output(self) -> Result<Output, Error> {
        Ok(Output::Content(self))
    }
    fn output_schema() -> Option<Value> {
        None
    }
}

/// The return type of a tool: `Result<T, E>` with `T: IntoOutput` and `E: Into<Error>` (an
/// [`ErrorBody`](crate::ErrorBody) type, or [`Error`]). Named in the compiler's messages about a
/// wrong return type; never written by hand.
#[diagnostic::on_unimplemented(
    message = "a tool must return `Result<T, E>`, not `{Self}`",
    note = "T is `Serialize + JsonSchema` (or `tooltable::content::Content`); E implements `tooltable::ErrorBody` (or is `tooltable::Error`)"
)]
pub trait Returned {
    /// What the tool returned, as the table carries it.
    fn into_result(self) -> Result<Output, Error>;
    /// The outputSchema of the success type.
    fn output_schema() -> Option<Value>;
    /// What the tool returned, its success written straight to JSON text where it can be.
    #[doc(hidden)]
    fn into_rendered(self) -> Result<Rendered, Error>;
}

impl<T: IntoOutput, E: Into<Error>> Returned for Result<T, E> {
    fn into_result(self) -> Result<Output, Error> {
        match self {
            Ok(v) => v.into_output(),
            Err(e) => Err(e.into()),
        }
    }
    fn output_schema() -> Option<Value> {
        T::output_schema()
    }
    fn into_rendered(self) -> Result<Rendered, Error> {
        match self {
            Ok(v) => v.into_rendered(),
            Err(e) => Err(e.into()),
        }
    }
}
