//! Argument validation against a tool's inputSchema, reported as a tool failure a model can act on.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::Entry;
use crate::api::error::{Error, ErrorKind};
use crate::engine::wire;

/// The most violations one failure lists; the rest are counted.
const MAX_VIOLATIONS: usize = 20;

/// One way the arguments break the inputSchema.
#[derive(Debug, Serialize)]
pub(crate) struct Violation {
    /// A JSON Pointer to the argument; empty for the whole.
    pub(crate) path: String,
    /// The schema keyword that refused it.
    pub(crate) keyword: Cow<'static, str>,
    pub(crate) message: String,
}

/// The body of the failure: what was refused.
#[derive(Debug, Serialize)]
struct InvalidArguments {
    error: &'static str,
    violations: Vec<Violation>,
    /// How many violations beyond the listed ones there were.
    #[serde(skip_serializing_if = "Option::is_none")]
    omitted: Option<usize>,
}

/// Checks `args` (an object) against the tool's schema and, unless the tool opts out, rejects
/// argument names the schema does not know, so a misspelt optional argument never passes silently.
pub(crate) fn arguments<S>(entry: &Entry<S>, args: &Value) -> Result<(), Error> {
    let mut violations: Vec<Violation> = Vec::new();
    if let (Some(known), Some(given)) = (&entry.known_args, args.as_object()) {
        for name in given.keys().filter(|k| !known.contains(k)) {
            let expected = if known.is_empty() {
                "this tool takes no arguments".to_owned()
            } else {
                format!("expected one of: {}", known.join(", "))
            };
            violations.push(Violation {
                path: pointer_to(name),
                keyword: Cow::Borrowed("additionalProperties"),
                message: format!("unknown argument `{name}`; {expected}"),
            });
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
            violations.push(Violation {
                path: error.instance_path().as_str().to_owned(),
                keyword: Cow::Owned(error.kind().keyword().to_owned()),
                message: message(&error, &entry.descriptor.input_schema),
            });
        }
    }
    if violations.is_empty() {
        return Ok(());
    }
    Err(failure(violations, total.checked_sub(MAX_VIOLATIONS).filter(|&n| n > 0)))
}

/// The failure for arguments that break the schema: each violation names path, keyword, message.
pub(crate) fn invalid(violations: Vec<Violation>) -> Error {
    failure(violations, None)
}

fn failure(violations: Vec<Violation>, omitted: Option<usize>) -> Error {
    let body = InvalidArguments { error: "Invalid arguments", violations, omitted };
    Error { kind: ErrorKind::InvalidInput, body: wire::to_value(&body) }
}

/// The validator's message, with three exceptions: an enum names every value it allows (the
/// validator names two and counts the rest), so the caller can pick the right one; a `not` with
/// a `description` (a combination of arguments a tool refuses) says that description rather than
/// echo both schemas; and a refused `pattern` says what its schema describes, which a person
/// reads better than the regular expression.
fn message(error: &jsonschema::ValidationError, schema: &Value) -> String {
    use jsonschema::error::ValidationErrorKind;
    let described = |at: &str| schema.pointer(at).and_then(|s| s.get("description")).and_then(Value::as_str);
    match error.kind() {
        ValidationErrorKind::Enum { options } => {
            let allowed: Vec<String> = options.as_array().into_iter().flatten().map(Value::to_string).collect();
            format!("{} is not one of: {}", error.instance(), allowed.join(", "))
        }
        ValidationErrorKind::Not { schema } => match schema.get("description").and_then(Value::as_str) {
            Some(why) => why.to_owned(),
            None => error.to_string(),
        },
        // A refused name is its own error inside: worded as that error is.
        ValidationErrorKind::PropertyNames { error } => message(error, schema),
        ValidationErrorKind::Pattern { .. } => {
            // The keyword's own schema is the pointer less its last step, `/pattern`.
            let keyword_at = error.schema_path().as_str();
            match keyword_at.strip_suffix("/pattern").and_then(described) {
                Some(what) => format!("{} does not match its pattern. Expected: {what}", error.instance()),
                None => error.to_string(),
            }
        }
        _ => error.to_string(),
    }
}

fn pointer_to(name: &str) -> String {
    format!("/{}", name.replace('~', "~0").replace('/', "~1"))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    fn messages(schema: Value, args: Value) -> Vec<String> {
        let validator = jsonschema::validator_for(&schema).unwrap();
        validator.iter_errors(&args).map(|e| super::message(&e, &schema)).collect()
    }

    #[test]
    fn a_refusal_says_what_its_schema_describes() {
        let schema = json!({
            "type": "object",
            "properties": {
                "code": { "type": "string", "pattern": "^[A-Z]{3}$", "description": "three capitals" },
                "bare": { "type": "string", "pattern": "^x$" },
                "kind": { "enum": ["a", "b", "c", "d"] },
            },
            "not": { "required": ["code", "bare"], "description": "give `code` or `bare`, not both" },
        });
        assert_eq!(
            messages(schema.clone(), json!({ "code": "ab" })),
            ["\"ab\" does not match its pattern. Expected: three capitals"]
        );
        assert_eq!(messages(schema.clone(), json!({ "bare": "y" })), ["\"y\" does not match \"^x$\""]);
        assert_eq!(
            messages(schema.clone(), json!({ "kind": "e" })),
            ["\"e\" is not one of: \"a\", \"b\", \"c\", \"d\""]
        );
        assert_eq!(messages(schema, json!({ "code": "ABC", "bare": "x" })), ["give `code` or `bare`, not both"]);
        let keyed = json!({
            "type": "object",
            "properties": { "map": { "propertyNames": { "pattern": "^k", "description": "a key starting with k" } } },
        });
        assert_eq!(
            messages(keyed, json!({ "map": { "x": 1 } })),
            ["\"x\" does not match its pattern. Expected: a key starting with k"]
        );
    }
}
