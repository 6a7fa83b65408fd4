//! Newline-delimited framing with a bound: a line longer than the limit is skipped to its end and
//! reported with its first bytes (enough to find the request's id), never buffered whole.

use std::io::BufRead;

/// One item read from the stream.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Line<'a> {
    /// A complete line, without its `\n` (a trailing `\r` is removed too).
    Message(&'a [u8]),
    /// A line over the limit was skipped: `len` bytes of it were read, and `head` is its start.
    TooLong { len: usize, head: &'a [u8] },
}

/// How much of an over-long line is kept.
const HEAD_BYTES: usize = 64 * 1024;

/// Reads lines of at most `max` bytes.
pub(super) struct LineReader<R> {
    reader: R,
    max: usize,
    line: Vec<u8>,
    /// Bytes of an over-long line seen so far, while skipping to its end.
    skipping: Option<usize>,
}

impl<R: BufRead> LineReader<R> {
    pub(super) fn new(reader: R, max: usize) -> Self {
        LineReader { reader, max, line: Vec::new(), skipping: None }
    }

    /// The next line, or `None` at the end of the stream.
    pub(super) fn next(&mut self) -> std::io::Result<Option<Line<'_>>> {
        self.line.clear();
        loop {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                // End of stream: a last line without a newline still counts.
                return Ok(match self.skipping.take() {
                    Some(len) => Some(Line::TooLong { len, head: &self.line }),
                    None if self.line.is_empty() => None,
                    None => Some(Line::Message(trim_cr(&self.line))),
                });
            }
            let (chunk, done) = match memchr::memchr(b'\n', available) {
                Some(i) => (&available[..i], true),
                None => (available, false),
            };
            let taken = chunk.len() + usize::from(done);
            match &mut self.skipping {
                Some(n) => *n += chunk.len(),
                None if self.line.len() + chunk.len() > self.max => {
                    self.skipping = Some(self.line.len() + chunk.len());
                    let keep = HEAD_BYTES.min(self.max).saturating_sub(self.line.len()).min(chunk.len());
                    self.line.extend_from_slice(&chunk[..keep]);
                    self.line.truncate(HEAD_BYTES);
                }
                None => self.line.extend_from_slice(chunk),
            }
            self.reader.consume(taken);
            if done {
                return Ok(Some(match self.skipping.take() {
                    Some(len) => Line::TooLong { len, head: &self.line },
                    None => Line::Message(trim_cr(&self.line)),
                }));
            }
        }
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8], max: usize) -> Vec<String> {
        let mut r = LineReader::new(std::io::BufReader::with_capacity(4, input), max);
        let mut out = Vec::new();
        while let Some(line) = r.next().unwrap() {
            out.push(match line {
                Line::Message(m) => String::from_utf8_lossy(m).into_owned(),
                Line::TooLong { len, head } => format!("<too long: {len}, {}>", String::from_utf8_lossy(head)),
            });
        }
        out
    }

    #[test]
    fn splits_bounds_and_recovers() {
        assert_eq!(read_all(b"ab\ncd\r\nef", 10), ["ab", "cd", "ef"]);
        assert_eq!(read_all(b"short\n0123456789abc\nok\n", 10), ["short", "<too long: 13, 0123456789>", "ok"]);
        assert_eq!(read_all(b"0123456789abc", 10), ["<too long: 13, 0123456789>"]);
        assert_eq!(read_all(b"", 10), Vec::<String>::new());
    }
}
