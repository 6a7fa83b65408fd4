//! What validation finds: errors (the spec is refused) apart from warnings (it is accepted).

use schemars::JsonSchema;
use serde::Serialize;

/// One problem, where it is (`derivations[2].expr`, `graph`, `schema`) and what it is.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Finding {
    pub location: String,
    pub message: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct Findings {
    pub errors: Vec<Finding>,
    pub warnings: Vec<Finding>,
}

impl Findings {
    pub fn error(&mut self, location: impl Into<String>, message: impl Into<String>) {
        self.errors.push(Finding { location: location.into(), message: message.into() });
    }

    pub fn warning(&mut self, location: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(Finding { location: location.into(), message: message.into() });
    }

    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }
}
