//! The session file: one message per line, `→ {json}` sent by the client and `← {json}` received,
//! `#` comments and blank lines kept as they are.

use std::fmt;

use serde_json::Value;

/// One line of a session file.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// A comment or blank line, kept verbatim.
    Text(String),
    Sent(Value),
    Received(Value),
}

/// A parsed session, with the line number (from 1) of each line.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionFile {
    pub lines: Vec<(usize, Line)>,
}

/// A line that is neither a comment nor a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

pub const SENT: &str = "→ ";
pub const RECEIVED: &str = "← ";

impl SessionFile {
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let mut lines = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let number = i + 1;
            // A `\r` that `lines` leaves at the end (a last line with no `\n`, or `\r\r\n`) would not survive rendering.
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            let trimmed = raw.trim_start();
            let line = if trimmed.is_empty() || trimmed.starts_with('#') {
                Line::Text(raw.to_owned())
            } else if let Some(json) = trimmed.strip_prefix(SENT) {
                Line::Sent(parse_json(json, number)?)
            } else if let Some(json) = trimmed.strip_prefix(RECEIVED) {
                Line::Received(parse_json(json, number)?)
            } else {
                return Err(ParseError {
                    line: number,
                    message: format!("expected `# comment`, `{SENT}{{json}}` or `{RECEIVED}{{json}}`, found {raw:?}"),
                });
            };
            lines.push((number, line));
        }
        Ok(SessionFile { lines })
    }

    /// The file as text: the same comments, each message as one line of compact JSON.
    pub fn render(lines: &[Line]) -> String {
        let mut out = String::new();
        for line in lines {
            match line {
                Line::Text(t) => out.push_str(t),
                Line::Sent(v) => {
                    out.push_str(SENT);
                    out.push_str(&v.to_string());
                }
                Line::Received(v) => {
                    out.push_str(RECEIVED);
                    out.push_str(&v.to_string());
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

/// One message sent and what came back before the next one.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub line: usize,
    pub sent: Value,
    pub received: Vec<(usize, Value)>,
}

fn parse_json(text: &str, line: usize) -> Result<Value, ParseError> {
    serde_json::from_str(text).map_err(|e| ParseError { line, message: format!("not JSON: {e}") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_renders_and_groups() {
        let text =
            "# handshake\n→ {\"id\":1,\"method\":\"ping\"}\n← {\"id\":1,\"result\":{}}\n\n→ {\"method\":\"n\"}\n";
        let file = SessionFile::parse(text).unwrap();
        let lines: Vec<Line> = file.lines.iter().map(|(_, l)| l.clone()).collect();
        assert_eq!(SessionFile::render(&lines), text);
        let steps = file.steps();
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0].line, 2);
        assert_eq!(steps[0].received[0].0, 3);
        assert!(steps[1].received.is_empty());
        let bad = SessionFile::parse("→ {\"a\":1}\nnonsense\n").unwrap_err();
        assert_eq!(bad.line, 2);
    }
}
