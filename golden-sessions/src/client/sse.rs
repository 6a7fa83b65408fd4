//! Server-sent events, parsed incrementally: each event's `data` lines joined; events without data
//! (the priming event) and comments skipped.

#[derive(Default)]
pub(crate) struct SseParser {
    buffer: String,
    data: Vec<String>,
    /// The last event id seen, to resume from.
    pub(crate) last_id: Option<String>,
}

impl SseParser {
    /// Feeds bytes; returns the data of every event they complete.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Vec<String> {
        self.buffer.push_str(&String::from_utf8_lossy(chunk));
        let mut events = Vec::new();
        while let Some(end) = self.buffer.find('\n') {
            let line: String = self.buffer.drain(..=end).collect();
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                let data = std::mem::take(&mut self.data).join("\n");
                if !data.trim().is_empty() {
                    events.push(data);
                }
            } else if let Some(id) = line.strip_prefix("id:") {
                self.last_id = Some(id.trim().to_owned());
            } else if let Some(value) = line.strip_prefix("data:") {
                self.data.push(value.strip_prefix(' ').unwrap_or(value).to_owned());
            }
        }
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_across_chunks() {
        let mut p = SseParser::default();
        assert!(p.feed(b"id: 1-0\nretry: 500\ndata: \n\n").is_empty());
        assert!(p.feed(b"id: 1-1\nevent: message\ndata: {\"a\"").is_empty());
        assert_eq!(p.feed(b":1}\n\n: comment\n\n"), ["{\"a\":1}"]);
        assert_eq!(p.last_id.as_deref(), Some("1-1"));
    }
}
