//! Server-sent events, parsed as they arrive: lines end with `\r\n`, `\n` or `\r` (a `\r\n` may be
//! split across reads), `data` lines are joined, `id` and `retry` are remembered for resuming,
//! comments and events without data are skipped. What is kept of an unfinished event is bounded.

/// The parser of one event stream.
#[derive(Debug, Default)]
pub(crate) struct Parser {
    /// The current line, not yet ended.
    line: Vec<u8>,
    /// The `data` lines of the current event.
    data: Vec<u8>,
    has_data: bool,
    /// The last byte fed was a `\r`, so a `\n` first in the next chunk ends no other line.
    after_cr: bool,
    /// The last event id the stream gave, to resume from.
    pub last_id: Option<String>,
    /// The reconnection delay the stream asked for, in milliseconds.
    pub retry_ms: Option<u64>,
}

/// An event's data is larger than the bound the parser was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLarge;

impl Parser {
    /// Feeds bytes; the data of every event they complete, in order. `bound` caps the bytes of
    /// one event (its data and its current line).
    pub(crate) fn feed(&mut self, chunk: &[u8], bound: usize) -> Result<Vec<String>, TooLarge> {
        let mut events = Vec::new();
        for &byte in chunk {
            match byte {
                b'\n' if std::mem::take(&mut self.after_cr) => {}
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    if let Some(event) = self.end_line() {
                        events.push(event);
                    }
                }
                _ => {
                    self.after_cr = false;
                    self.line.push(byte);
                }
            }
            if self.line.len() + self.data.len() > bound {
                return Err(TooLarge);
            }
        }
        Ok(events)
    }

    /// Ends the current line: a blank one dispatches the event.
    fn end_line(&mut self) -> Option<String> {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            let data = std::mem::take(&mut self.data);
            return std::mem::take(&mut self.has_data).then(|| String::from_utf8_lossy(&data).into_owned());
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(0) => return None,
            Some(i) => (&line[..i], line[i + 1..].strip_prefix(b" ").unwrap_or(&line[i + 1..])),
            None => (&line[..], &b""[..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            // An id with a NUL is ignored, as the format says.
            b"id" if !value.contains(&0) => self.last_id = Some(String::from_utf8_lossy(value).into_owned()),
            b"retry" => self.retry_ms = std::str::from_utf8(value).ok().and_then(|v| v.parse().ok()),
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_cut_at_blank_lines_whatever_the_line_ends() {
        for end in ["\r\n", "\r", "\n"] {
            let stream = format!(
                "id: 1{end}retry: 500{end}data:{end}{end}: keepalive{end}{end}id: 2{end}event: message{end}data: {{\"a\"{end}data: :1}}{end}{end}"
            );
            let mut parser = Parser::default();
            // Fed a byte at a time, so that a `\r\n` is also split across two chunks.
            let events: Vec<String> = stream.as_bytes().chunks(1).flat_map(|b| parser.feed(b, 1024).unwrap()).collect();
            assert_eq!(events, ["", "{\"a\"\n:1}"], "{end:?}");
            assert_eq!(parser.last_id.as_deref(), Some("2"));
            assert_eq!(parser.retry_ms, Some(500));
        }
    }

    #[test]
    fn an_unfinished_event_is_bounded() {
        let mut parser = Parser::default();
        assert_eq!(parser.feed(b"data: 0123456789\n", 64), Ok(vec![]));
        assert_eq!(parser.feed(&[b'x'; 100], 64), Err(TooLarge));
    }
}
