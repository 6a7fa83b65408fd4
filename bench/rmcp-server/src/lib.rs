//! The argument and result types of `add_numbers`, shared by every rmcp server of the bench.

use rmcp::schemars::{self, JsonSchema};
use serde::{Deserialize, Serialize};

#[derive(Deserialize, JsonSchema)]
pub struct AddNumbers {
    /// The first addend.
    pub a: f64,
    /// The second addend.
    pub b: f64,
}

/// The sum of two numbers.
#[derive(Serialize, JsonSchema)]
pub struct Sum {
    pub sum: f64,
}
