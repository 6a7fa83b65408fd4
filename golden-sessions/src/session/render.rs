//! Messages as a person reads them in a session file: pretty-printed with 2-space indents, keys in
//! the order they came, an object or array kept on one line when it fits in [`WIDTH`] columns,
//! and every string whole, however long.
//!
//! ```
//! use serde_json::json;
//! use tooltable_golden::session::render::WIDTH;
//! use tooltable_golden::session::{Line, SessionFile};
//!
//! let short = Line::Received(json!({ "id": 1, "result": {} }));
//! assert_eq!(SessionFile::render(&[short]), "← {\"id\": 1, \"result\": {}}\n");
//! let long = Line::Received(json!({ "id": 2, "result": { "text": "x".repeat(WIDTH) } }));
//! let x = "x".repeat(WIDTH);
//! let expected = format!("← {{\n    \"id\": 2,\n    \"result\": {{\n      \"text\": \"{x}\"\n    }}\n  }}\n");
//! assert_eq!(SessionFile::render(&[long]), expected, "too wide: one member a line, the string whole");
//! ```

use serde_json::Value;

/// The column a line of a message stays within, unless one string alone is longer.
pub const WIDTH: usize = 100;

/// `value` as the text after a direction marker: its first line starts at `column`, and the lines
/// after it are indented by `column` more spaces than their depth.
pub(crate) fn message(value: &Value, column: usize) -> String {
    let mut out = String::new();
    write(value, column, column, 0, &mut out);
    out
}

/// Writes `value` at `at` columns from the start of the line; `indent` is the indentation of the
/// line it starts on, `tail` the width of what follows it on that line (a comma).
fn write(value: &Value, indent: usize, at: usize, tail: usize, out: &mut String) {
    let flat = inline(value);
    let fits = at + flat.chars().count() + tail <= WIDTH;
    match value {
        Value::Array(items) if !fits && !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                newline(out, indent + 2);
                let comma = usize::from(i + 1 < items.len());
                write(item, indent + 2, indent + 2, comma, out);
                if comma == 1 {
                    out.push(',');
                }
            }
            newline(out, indent);
            out.push(']');
        }
        Value::Object(map) if !fits && !map.is_empty() => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                newline(out, indent + 2);
                let key = format!("{}: ", quoted(key));
                out.push_str(&key);
                let comma = usize::from(i + 1 < map.len());
                write(item, indent + 2, indent + 2 + key.chars().count(), comma, out);
                if comma == 1 {
                    out.push(',');
                }
            }
            newline(out, indent);
            out.push('}');
        }
        _ => out.push_str(&flat),
    }
}

fn newline(out: &mut String, indent: usize) {
    out.push('\n');
    out.extend(std::iter::repeat_n(' ', indent));
}

/// `value` on one line, with a space after each `:` and `,`.
fn inline(value: &Value) -> String {
    match value {
        Value::Array(items) => format!("[{}]", items.iter().map(inline).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            let members: Vec<String> = map.iter().map(|(k, v)| format!("{}: {}", quoted(k), inline(v))).collect();
            format!("{{{}}}", members.join(", "))
        }
        other => other.to_string(),
    }
}

/// A key as JSON writes it.
fn quoted(key: &str) -> String {
    Value::from(key).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn breaks_what_does_not_fit_and_keeps_strings_whole() {
        assert_eq!(message(&json!({"id": 1, "method": "ping"}), 2), r#"{"id": 1, "method": "ping"}"#);
        assert_eq!(message(&json!({}), 2), "{}");
        let long = "x".repeat(120);
        let value = json!({"id": 1, "result": {"text": long, "list": [1, 2]}, "empty": []});
        let expected = format!(
            "{{\n    \"id\": 1,\n    \"result\": {{\n      \"text\": \"{long}\",\n      \"list\": [1, 2]\n    }},\n    \"empty\": []\n  }}"
        );
        assert_eq!(message(&value, 2), expected);
        let parsed: Value = serde_json::from_str(&message(&value, 2)).unwrap();
        assert_eq!(parsed, value);
    }
}
