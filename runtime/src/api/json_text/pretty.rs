//! The pretty-printed text as `serde_json::PrettyFormatter` lays it out (two spaces a level),
//! written escaped, as it stands inside the JSON string of a text block: a `tools/call` result
//! writes it as it is, with no pass over it to escape it, and no check that it is UTF-8.

/// The pretty-printed text, escaped, and how long it is unescaped.
pub(super) struct Pretty {
    pub(super) escaped: Vec<u8>,
    /// Its length in bytes, unescaped: what the result-size guard measures first.
    pub(super) len: usize,
    indent: usize,
    has_value: bool,
}

impl Pretty {
    pub(super) fn with_capacity(capacity: usize) -> Self {
        Pretty { escaped: Vec::with_capacity(capacity), len: 0, indent: 0, has_value: false }
    }

    /// Text that needs no escaping within a JSON string: a string's fragment between its
    /// escapes, a number, a literal.
    pub(super) fn plain(&mut self, text: &[u8]) {
        self.escaped.extend_from_slice(text);
        self.len += text.len();
    }

    /// Text that may hold a quote or a backslash: a string's quotes, an escape.
    pub(super) fn escape(&mut self, text: &[u8]) {
        for &byte in text {
            match byte {
                b'"' | b'\\' => self.escaped.extend_from_slice(&[b'\\', byte]),
                _ => self.escaped.push(byte),
            }
        }
        self.len += text.len();
    }

    /// A new line at the current depth.
    fn new_line(&mut self) {
        self.escaped.extend_from_slice(br"\n");
        self.escaped.resize(self.escaped.len() + 2 * self.indent, b' ');
        self.len += 1 + 2 * self.indent;
    }

    pub(super) fn open(&mut self, bracket: u8) {
        self.indent += 1;
        self.has_value = false;
        self.plain(&[bracket]);
    }

    pub(super) fn close(&mut self, bracket: u8) {
        self.indent -= 1;
        if self.has_value {
            self.new_line();
        }
        self.plain(&[bracket]);
    }

    /// Before a member or an item.
    pub(super) fn next(&mut self, first: bool) {
        if !first {
            self.plain(b",");
        }
        self.new_line();
    }

    pub(super) fn before_value(&mut self) {
        self.plain(b": ");
    }

    pub(super) fn after_value(&mut self) {
        self.has_value = true;
    }
}
