//! Arguments that are canonical addresses: read with `Path::parse`, and stated in their schema
//! with the pattern of the same grammar, so that a client sees which strings are addresses before
//! it sends one.

use schemars::Schema;
use serde_json::{Value, json};

use super::errors::ModelError;
use crate::engine::cycle::CONSTRAINT_TARGET;
use crate::engine::path::{self, Path};

/// Reads an address argument; what it is not is the grammar's own message.
pub fn parse(text: &str) -> Result<Path, ModelError> {
    Path::parse(text).map_err(|e| ModelError::Invalid(e.0))
}

/// What a refused address is told it should have been.
const AN_ADDRESS: &str =
    "a canonical address: `$`, then `.name`, `[index]`, `[*]` or `[\"key\"]` steps, e.g. $.items[0].price";

/// A string argument that is an address.
pub fn one(schema: &mut Schema) {
    schema.insert("pattern".into(), json!(anchored(path::GRAMMAR)));
}

/// A list of addresses.
pub fn list(schema: &mut Schema) {
    if let Some(Value::Object(items)) = schema.get_mut("items") {
        items.insert("description".into(), json!(AN_ADDRESS));
        items.insert("pattern".into(), json!(anchored(path::GRAMMAR)));
    }
}

/// An object keyed by addresses.
pub fn keys(schema: &mut Schema) {
    schema.insert("propertyNames".into(), json!({ "description": AN_ADDRESS, "pattern": anchored(path::GRAMMAR) }));
}

/// An address, or `$constraint:<id>` for a constraint's evaluations (what `explain` reads).
pub fn target(schema: &mut Schema) {
    let constraint = CONSTRAINT_TARGET.replace('$', "\\$");
    schema.insert("pattern".into(), json!(format!("^(?:{constraint}[\\s\\S]*|{})$", path::GRAMMAR)));
}

fn anchored(grammar: &str) -> String {
    format!("^{grammar}$")
}
