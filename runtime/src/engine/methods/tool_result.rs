//! A `tools/call` result from a tool's outcome: the pretty-printed JSON as a text block,
//! `structuredContent` when the value is an object, `isError` for tool failures, and the
//! result-size guard. A success already written as JSON text is taken as it is.

use jsonschema::Validator;
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::api::content::{Content, ContentBlock};
use crate::api::error::Error;
use crate::api::json_text::{EscapedText, JsonText};
use crate::api::output::{Output, Rendered};
use crate::engine::table::validate::{self, Violation};
use crate::engine::wire::{self, WireResult};

/// A `tools/call` result, serialized as it stands: no intermediate JSON value is built.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolResult {
    content: Blocks,
    #[serde(skip_serializing_if = "Option::is_none")]
    structured_content: Option<Structured>,
    is_error: bool,
}

/// `structuredContent`: a value, or the compact text of one.
enum Structured {
    Value(Value),
    Text(Vec<u8>),
}

impl Serialize for Structured {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Structured::Value(value) => value.serialize(s),
            Structured::Text(text) => {
                let raw: &RawValue = serde_json::from_slice(text).map_err(serde::ser::Error::custom)?;
                raw.serialize(s)
            }
        }
    }
}

/// Writes what serde writes, the constant parts as they are: serde escapes every key anew.
impl WireResult for ToolResult {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.extend_from_slice(br#"{"content":"#);
        match &self.content {
            Blocks::Text([ContentBlock::Text { text }]) => {
                out.extend_from_slice(br#"[{"type":"text","text":"#);
                serde_json::to_writer(&mut *out, text)?;
                out.extend_from_slice(b"}]");
            }
            Blocks::Written(WrittenBlock(text)) => {
                out.extend_from_slice(br#"[{"type":"text","text":""#);
                out.extend_from_slice(&text.0);
                out.extend_from_slice(br#""}]"#);
            }
            blocks => serde_json::to_writer(&mut *out, blocks)?,
        }
        match &self.structured_content {
            Some(Structured::Value(value)) => {
                out.extend_from_slice(br#","structuredContent":"#);
                serde_json::to_writer(&mut *out, value)?;
            }
            Some(Structured::Text(text)) => {
                out.extend_from_slice(br#","structuredContent":"#);
                out.extend_from_slice(text);
            }
            None => {}
        }
        out.extend_from_slice(if self.is_error { br#","isError":true}"# } else { br#","isError":false}"# });
        Ok(())
    }
}

#[derive(Serialize)]
#[serde(untagged)]
enum Blocks {
    /// The pretty-printed JSON of the value, as one text block.
    Text([ContentBlock; 1]),
    /// The tool's own content blocks.
    Content(Content),
    /// The pretty-printed JSON of a written success, as one text block.
    Written(WrittenBlock),
}

/// The text block of a written success, its text kept escaped, as the result writes it.
struct WrittenBlock(EscapedText);

impl Serialize for WrittenBlock {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        [ContentBlock::text(self.0.unescaped())].serialize(s)
    }
}

/// Shapes one outcome. `structured` is false for revisions before 2025-06-18. `output` is the
/// tool's compiled outputSchema: an error body it does not admit goes in the text block only,
/// since a client that validates `structuredContent` against it would turn the tool's error
/// into a protocol error.
pub(crate) fn tool_result(
    outcome: Result<Rendered, Error>,
    limit: usize,
    structured: bool,
    output: Option<&Validator>,
) -> ToolResult {
    let (value, is_error) = match outcome {
        Ok(Rendered::Output(Output::Content(content))) => {
            return ToolResult { content: Blocks::Content(content), structured_content: None, is_error: false };
        }
        Ok(Rendered::Json(text)) => return written(text, limit, structured, output),
        Ok(Rendered::Output(Output::Json(v))) => (v, false),
        Err(failure) => (failure.body, true),
    };
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    if let Some(chars) = over(&text, limit) {
        // The note keeps the outcome's isError: a committed write must never look failed,
        // or the caller would retry it.
        return note(chars, limit, is_error, structured, output);
    }
    with_text(text, value, is_error, structured, output.filter(|_| is_error))
}

/// A success already written: its text as it is, within the same guard.
fn written(text: JsonText, limit: usize, structured: bool, output: Option<&Validator>) -> ToolResult {
    if text.pretty_len > limit
        && let Some(chars) = over(&text.pretty.unescaped(), limit)
    {
        return note(chars, limit, false, structured, output);
    }
    let structured = structured && text.is_object();
    ToolResult {
        content: Blocks::Written(WrittenBlock(text.pretty)),
        structured_content: structured.then_some(Structured::Text(text.compact)),
        is_error: false,
    }
}

/// How many characters `text` has, when they are more than `limit`.
fn over(text: &str, limit: usize) -> Option<usize> {
    if text.len() <= limit {
        return None;
    }
    Some(text.chars().count()).filter(|&chars| chars > limit)
}

/// The result that stands for one over the limit, checked against the outputSchema.
fn note(chars: usize, limit: usize, is_error: bool, structured: bool, output: Option<&Validator>) -> ToolResult {
    let value = too_large(chars, limit);
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    with_text(text, value, is_error, structured, output)
}

/// `check`: the outputSchema a body must satisfy to travel as `structuredContent` (a tool's own
/// success needs no check).
fn with_text(text: String, value: Value, is_error: bool, structured: bool, check: Option<&Validator>) -> ToolResult {
    let admitted = check.is_none_or(|schema| schema.is_valid(&value));
    ToolResult {
        content: Blocks::Text([ContentBlock::text(text)]),
        structured_content: (structured && admitted && value.is_object()).then_some(Structured::Value(value)),
        is_error,
    }
}

/// The note that stands for a result over the limit.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TooLarge {
    error: &'static str,
    result_chars: usize,
    limit_chars: usize,
    hint: &'static str,
}

fn too_large(chars: usize, limit: usize) -> Value {
    wire::to_value(&TooLarge {
        error: "Result too large",
        result_chars: chars,
        limit_chars: limit,
        hint: "The result was withheld. Ask for less: a narrower selection, a projection or a smaller page.",
    })
}

/// The result of a tool call whose arguments nest deeper than the decoder reads: bad input for
/// the tool, a failure that says so.
pub(crate) fn too_deep(message: &str, limit: usize, structured: bool) -> ToolResult {
    let violation = Violation { path: String::new(), keyword: "maxDepth".into(), message: message.to_owned() };
    tool_result(Err(validate::invalid(vec![violation])), limit, structured, None)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::error::{Error, ErrorKind};

    fn tool_result(outcome: Result<Output, Error>, limit: usize, structured: bool) -> Value {
        serde_json::to_value(shaped(outcome, limit, structured, None)).unwrap()
    }

    /// The result of an outcome taken as a value.
    fn shaped(
        outcome: Result<Output, Error>,
        limit: usize,
        structured: bool,
        output: Option<&Validator>,
    ) -> ToolResult {
        super::tool_result(outcome.map(Rendered::Output), limit, structured, output)
    }

    /// A success written straight to text gives the result its value gives, written alike.
    #[test]
    fn a_written_success_is_shaped_as_its_value() {
        let schema = json!({ "type": "object", "required": ["sum"] });
        let output = jsonschema::validator_for(&schema).unwrap();
        let values = [
            json!({ "sum": 3.0, "s": "é\n" }),
            json!([1, { "a": [] }]),
            json!("text"),
            json!({ "sum": "x".repeat(100) }),
        ];
        for value in values {
            for (structured, output) in [(true, None), (false, None), (true, Some(&output))] {
                let text = JsonText::of(&value).unwrap();
                let by_text = super::tool_result(Ok(Rendered::Json(text)), 60, structured, output);
                let mut normalized = value.clone();
                crate::api::numbers::normalize(&mut normalized);
                let by_value = shaped(Ok(Output::Json(normalized)), 60, structured, output);
                let (mut written, mut expected) = (Vec::new(), Vec::new());
                by_text.write_json(&mut written).unwrap();
                by_value.write_json(&mut expected).unwrap();
                assert_eq!(String::from_utf8(written).unwrap(), String::from_utf8(expected).unwrap());
                assert_eq!(serde_json::to_value(&by_text).unwrap(), serde_json::to_value(&by_value).unwrap());
            }
        }
    }

    /// What a result writes by hand is what serde writes.
    #[test]
    fn writes_what_serde_writes() {
        let picture = Content::from(ContentBlock::image(b"dot", "image/png"));
        let outcomes = [
            Ok(Output::Json(json!({ "a": "x\"\n\u{7f}\u{1}é", "b": [1, 2.5] }))),
            Ok(Output::Json(json!([1]))),
            Ok(Output::Json(json!("text"))),
            Ok(Output::Content(picture)),
            Ok(Output::Content(Content::from(ContentBlock::text("a")))),
            Err(Error { kind: ErrorKind::Conflict, body: json!({ "error": "Version conflict" }) }),
        ];
        for outcome in outcomes {
            for structured in [true, false] {
                let result = shaped(outcome.clone(), 1000, structured, None);
                let mut written = Vec::new();
                result.write_json(&mut written).unwrap();
                assert_eq!(String::from_utf8(written).unwrap(), serde_json::to_string(&result).unwrap());
            }
        }
    }

    #[test]
    fn objects_get_structured_content_and_scalars_do_not() {
        let r = tool_result(Ok(Output::Json(json!({ "a": 1 }))), 1000, true);
        assert_eq!(r["structuredContent"], json!({ "a": 1 }));
        assert_eq!(r["content"][0]["text"], "{\n  \"a\": 1\n}");
        assert_eq!(r["isError"], false);
        let r = tool_result(Ok(Output::Json(json!([1]))), 1000, true);
        assert!(r.get("structuredContent").is_none());
        let r = tool_result(Ok(Output::Json(json!({ "a": 1 }))), 1000, false);
        assert!(r.get("structuredContent").is_none());
    }

    #[test]
    fn failures_carry_their_parsed_body() {
        let body = json!({ "error": "Version conflict", "expected": "1.0.0", "actual": "1.1.0" });
        let r = tool_result(Err(Error { kind: ErrorKind::Conflict, body: body.clone() }), 1000, true);
        assert_eq!(r["isError"], true);
        assert_eq!(r["structuredContent"], body);
        assert_eq!(serde_json::from_str::<Value>(r["content"][0]["text"].as_str().unwrap()).unwrap(), body);
    }

    #[test]
    fn an_error_body_the_output_schema_does_not_admit_is_text_only() {
        let schema = json!({
            "type": "object",
            "anyOf": [
                { "properties": { "sum": { "type": "number" } }, "required": ["sum"] },
                { "properties": { "error": { "const": "Version conflict" } }, "required": ["error"] },
            ],
        });
        let output = jsonschema::validator_for(&schema).unwrap();
        let shaped = |body: Value| {
            let failure = Error { kind: ErrorKind::Conflict, body };
            serde_json::to_value(shaped(Err(failure), 1000, true, Some(&output))).unwrap()
        };
        let admitted = shaped(json!({ "error": "Version conflict" }));
        assert_eq!(admitted["structuredContent"], json!({ "error": "Version conflict" }));
        let other = shaped(json!({ "error": "Invalid arguments" }));
        assert_eq!(other["isError"], true);
        assert!(other.get("structuredContent").is_none(), "{other}");
        assert_eq!(other["content"][0]["text"], "{\n  \"error\": \"Invalid arguments\"\n}");
    }

    #[test]
    fn the_guard_replaces_large_results() {
        let r = tool_result(Ok(Output::Json(json!({ "s": "x".repeat(100) }))), 50, true);
        assert_eq!(r["isError"], false);
        assert_eq!(r["structuredContent"]["error"], "Result too large");
        assert_eq!(r["structuredContent"]["limitChars"], 50);
        assert_eq!(r["structuredContent"]["resultChars"], 113);
        let failure = Error { kind: ErrorKind::Conflict, body: json!({ "error": "x".repeat(100) }) };
        let r = tool_result(Err(failure), 50, true);
        assert_eq!(r["isError"], true);
        assert_eq!(r["structuredContent"]["error"], "Result too large");
    }

    #[test]
    fn a_note_the_output_schema_does_not_admit_is_text_only() {
        let schema = json!({ "type": "object", "required": ["sum"] });
        let output = jsonschema::validator_for(&schema).unwrap();
        let large = Output::Json(json!({ "sum": "x".repeat(100) }));
        let r = serde_json::to_value(shaped(Ok(large), 50, true, Some(&output))).unwrap();
        assert_eq!(r["isError"], false);
        assert!(r.get("structuredContent").is_none(), "{r}");
        assert!(r["content"][0]["text"].as_str().unwrap().contains("Result too large"));
    }
}
