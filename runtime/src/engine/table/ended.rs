//! How a call ended, as the table gives it: the layers' [`Outcome`], or a success already
//! written as JSON text (asked for where no layer is to see it as a value).

use crate::api::error::Error;
use crate::api::json_text::JsonText;
use crate::api::layer::Outcome;
use crate::api::output::Rendered;

/// How a call ended.
#[derive(Debug)]
pub(crate) enum Ended {
    Outcome(Outcome),
    Written(JsonText),
}

impl Ended {
    /// As a layer sees it: a written success read back as a value.
    pub(crate) fn into_outcome(self) -> Outcome {
        match self {
            Ended::Outcome(outcome) => outcome,
            Ended::Written(text) => Outcome::Ok(Rendered::Json(text).into_output()),
        }
    }

    /// What the caller gets: the success, or the error of a failure or a refusal.
    pub(crate) fn into_rendered(self) -> Result<Rendered, Error> {
        match self {
            Ended::Outcome(outcome) => outcome.into_result().map(Rendered::Output),
            Ended::Written(text) => Ok(Rendered::Json(text)),
        }
    }
}

impl From<Result<Rendered, Error>> for Ended {
    fn from(result: Result<Rendered, Error>) -> Self {
        match result {
            Ok(Rendered::Json(text)) => Ended::Written(text),
            Ok(Rendered::Output(output)) => Ended::Outcome(Outcome::Ok(output)),
            Err(error) => Ended::Outcome(Outcome::ToolError(error)),
        }
    }
}
