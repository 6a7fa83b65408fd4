//! Argument validation against a tool's inputSchema, reported as a tool failure a model can act on.

use serde_json::{Value, json};

use crate::outcome::{ErrorKind, ToolFailure};
use crate::table::Entry;

/// The most violations one failure lists; the rest are counted.
const MAX_VIOLATIONS: usize = 20;

/// Checks `args` (an object) against the tool's schema and, unless the tool opts out, rejects
/// argument names the schema does not know, so a misspelt optional argument never passes silently.
pub(crate) fn arguments<S>(entry: &Entry<S>, args: &Value) -> Result<(), ToolFailure> {
    let mut violations: Vec<Value> = Vec::new();
    if let (Some(known), Some(given)) = (&entry.known_args, args.as_object()) {
        for name in given.keys().filter(|k| !known.contains(k)) {
            let expected = if known.is_empty() {
                "this tool takes no arguments".to_owned()
            } else {
                format!("expected one of: {}", known.join(", "))
            };
            violations.push(json!({
                "path": pointer_to(name),
                "keyword": "additionalProperties",
                "message": format!("unknown argument `{name}`; {expected}"),
            }));
        }
    }
    // The common case, valid arguments, is answered without collecting the schema's errors.
    if violations.is_empty() && entry.validator.is_valid(args) {
        return Ok(());
    }
    let mut total = violations.len();
    for error in entry.validator.iter_errors(args) {
        total += 1;
        if violations.len() < MAX_VIOLATIONS {
            violations.push(json!({
                "path": error.instance_path().as_str(),
                "keyword": error.kind().keyword(),
                "message": message(&error),
            }));
        }
    }
    if violations.is_empty() {
        return Ok(());
    }
    let mut failure = invalid(violations);
    if total > MAX_VIOLATIONS {
        failure.body["omitted"] = json!(total - MAX_VIOLATIONS);
    }
    Err(failure)
}

/// The failure for arguments that break the schema: each violation names path, keyword, message.
pub(crate) fn invalid(violations: Vec<Value>) -> ToolFailure {
    ToolFailure {
        kind: ErrorKind::InvalidInput,
        body: json!({ "error": "Invalid arguments", "violations": violations }),
    }
}

/// The validator's message, except that an enum names every value it allows (the validator
/// names two and counts the rest), so the caller can pick the right one.
fn message(error: &jsonschema::ValidationError) -> String {
    match error.kind() {
        jsonschema::error::ValidationErrorKind::Enum { options } => {
            let allowed: Vec<String> = options.as_array().into_iter().flatten().map(Value::to_string).collect();
            format!("{} is not one of: {}", error.instance(), allowed.join(", "))
        }
        _ => error.to_string(),
    }
}

fn pointer_to(name: &str) -> String {
    format!("/{}", name.replace('~', "~0").replace('/', "~1"))
}
