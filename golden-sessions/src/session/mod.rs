//! The session file: each message after its direction marker, `→` sent by the client and `←`
//! received, pretty-printed over as many lines as it needs; `#` comments and blank lines between
//! messages kept as they are.
//!
//! ```text
//! # A call, and its answer.
//! → {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2}}}
//! ← {
//!     "jsonrpc": "2.0",
//!     "id": 2,
//!     "result": {"content": [{"type": "text", "text": "4"}], "isError": false}
//!   }
//! ```
//!
//! A message may be written in any JSON layout (one compact line is fine) as long as it starts on
//! its marker's line and nothing follows it on its last line; [`SessionFile::render`] writes the
//! layout of [`render`].
//!
//! ```
//! use tooltable_golden::session::SessionFile;
//!
//! let file = SessionFile::parse(concat!(
//!     "# A call, and its answer.\n",
//!     "→ {\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/call\", \"params\": {\"name\": \"add\"}}\n",
//!     "← {\"jsonrpc\": \"2.0\",\n",
//!     "    \"id\": 2, \"result\": {\"content\": []}}\n",
//! ))?;
//! let steps = file.steps();
//! assert_eq!(steps.len(), 1);
//! assert_eq!(steps[0].sent["params"]["name"], "add");
//! assert_eq!(steps[0].received[0].1["id"], 2);
//! // Written back in the layout of `render`: the answer fits on one line.
//! let lines: Vec<_> = file.lines.iter().map(|(_, line)| line.clone()).collect();
//! assert!(SessionFile::render(&lines).ends_with("← {\"jsonrpc\": \"2.0\", \"id\": 2, \"result\": {\"content\": []}}\n"));
//! # Ok::<(), tooltable_golden::session::ParseError>(())
//! ```

pub mod render;

use std::fmt;

use serde_json::Value;

/// One entry of a session file.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// A comment or blank line, kept verbatim.
    Text(String),
    /// A message the client sent.
    Sent(Value),
    /// A message the server sent.
    Received(Value),
}

/// A parsed session, with the line number (from 1) where each entry starts.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionFile {
    /// The entries in file order.
    pub lines: Vec<(usize, Line)>,
}

/// A line that is neither a comment nor a message, or a message that is not JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// The marker of a message the client sent.
pub const SENT: &str = "→ ";
/// The marker of a message the server sent.
pub const RECEIVED: &str = "← ";

impl SessionFile {
    /// Reads a session file.
    ///
    /// ```
    /// use tooltable_golden::session::{Line, SessionFile};
    ///
    /// let file = SessionFile::parse("# ping\n→ {\"id\": 1,\n    \"method\": \"ping\"}\n← {\"id\": 1, \"result\": {}}\n").unwrap();
    /// assert_eq!(file.lines[1].0, 2);
    /// assert_eq!(file.lines[2].0, 4);
    /// assert!(matches!(&file.lines[2].1, Line::Received(v) if v["result"].is_object()));
    /// ```
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let mut lines = Vec::new();
        let mut rest = text;
        let mut number = 0;
        while !rest.is_empty() {
            number += 1;
            let (raw, after) = rest.split_once('\n').unwrap_or((rest, ""));
            // A `\r` at the end (CRLF, or `\r\r\n`) would not survive rendering.
            let raw = raw.trim_end_matches('\r');
            let trimmed = raw.trim_start();
            let marked = [(SENT, Line::Sent as fn(Value) -> Line), (RECEIVED, Line::Received)]
                .into_iter()
                .find_map(|(marker, make)| trimmed.strip_prefix(marker).map(|_| (marker, make)));
            if trimmed.is_empty() || trimmed.starts_with('#') {
                lines.push((number, Line::Text(raw.to_owned())));
                rest = after;
            } else if let Some((marker, make)) = marked {
                let start = text.len() - rest.len() + (raw.len() - trimmed.len()) + marker.len();
                let (value, end) = parse_message(text, start, number)?;
                lines.push((number, make(value)));
                // The lines the message continues over.
                number += text[start..end].trim_end_matches('\n').matches('\n').count();
                rest = &text[end..];
            } else {
                return Err(ParseError {
                    line: number,
                    message: format!("expected `# comment`, `{SENT}{{json}}` or `{RECEIVED}{{json}}`, found {raw:?}"),
                });
            }
        }
        Ok(SessionFile { lines })
    }

    /// Reads the session file at `path`; the error names the file, and the line when it does not
    /// parse.
    pub fn load(path: &std::path::Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        SessionFile::parse(&text).map_err(|e| format!("{}:{}: {}", path.display(), e.line, e.message))
    }

    /// The file as text: the same comments, each message in the layout of [`render`].
    pub fn render(lines: &[Line]) -> String {
        let mut out = String::new();
        for line in lines {
            match line {
                Line::Text(t) => out.push_str(t),
                Line::Sent(v) => {
                    out.push_str(SENT);
                    out.push_str(&render::message(v, 2));
                }
                Line::Received(v) => {
                    out.push_str(RECEIVED);
                    out.push_str(&render::message(v, 2));
                }
            }
            out.push('\n');
        }
        out
    }

    /// The steps of the session: each sent message with the messages recorded after it.
    pub fn steps(&self) -> Vec<Step> {
        let mut steps: Vec<Step> = Vec::new();
        for (number, line) in &self.lines {
            match line {
                Line::Sent(v) => steps.push(Step { line: *number, sent: v.clone(), received: Vec::new() }),
                Line::Received(v) => {
                    if let Some(step) = steps.last_mut() {
                        step.received.push((*number, v.clone()));
                    }
                }
                Line::Text(_) => {}
            }
        }
        steps
    }
}

/// The message starting at byte `start` of `text` (on line `line`), and the byte just after the
/// end of its last line.
fn parse_message(text: &str, start: usize, line: usize) -> Result<(Value, usize), ParseError> {
    let first_line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    if text[start..first_line_end].trim().is_empty() {
        return Err(ParseError { line, message: "a message starts on its marker's line".to_owned() });
    }
    let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    let value = match stream.next() {
        Some(Ok(value)) => value,
        Some(Err(e)) => {
            return Err(ParseError { line: line + e.line().saturating_sub(1), message: format!("not JSON: {e}") });
        }
        None => return Err(ParseError { line, message: "a message starts on its marker's line".to_owned() }),
    };
    let end = start + stream.byte_offset();
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    let trailing = &text[end..line_end];
    if !trailing.trim().is_empty() {
        let at = line + text[start..end].matches('\n').count();
        let found = trailing.trim_end();
        return Err(ParseError { line: at, message: format!("text after the message: {found:?}") });
    }
    Ok((value, line_end))
}

/// One message sent and what came back before the next one.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The line of the sent message.
    pub line: usize,
    /// The sent message.
    pub sent: Value,
    /// The messages received after it, each with its line.
    pub received: Vec<(usize, Value)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_renders_and_groups() {
        let text =
            "# handshake\n→ {\"id\":1,\"method\":\"ping\"}\n← {\"id\":1,\n  \"result\":{}}\n\n→ {\"method\":\"n\"}\n";
        let file = SessionFile::parse(text).unwrap();
        let lines: Vec<Line> = file.lines.iter().map(|(_, l)| l.clone()).collect();
        let rendered = SessionFile::render(&lines);
        assert_eq!(
            rendered,
            "# handshake\n→ {\"id\": 1, \"method\": \"ping\"}\n← {\"id\": 1, \"result\": {}}\n\n→ {\"method\": \"n\"}\n"
        );
        let steps = file.steps();
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0].line, 2);
        assert_eq!(steps[0].received[0].0, 3);
        assert_eq!(steps[1].line, 6, "a message over two lines moves the next one down");
        assert!(steps[1].received.is_empty());
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(SessionFile::parse("→ {\"a\":1}\nnonsense\n").unwrap_err().line, 2);
        assert_eq!(SessionFile::parse("# x\n→ {\"a\":\n  1,,}\n").unwrap_err().line, 3);
        assert_eq!(SessionFile::parse("→ {\"a\":\n1} {}\n").unwrap_err().line, 2);
        assert_eq!(SessionFile::parse("→ \n{}\n").unwrap_err().line, 1);
    }
}
