//! A tool's typed result written straight to JSON text, once, in both forms a `tools/call`
//! result carries: compact (its `structuredContent`) and pretty-printed (its text block, escaped
//! as that block's string holds it). No JSON value is built in between.
//!
//! The text is what the value path writes (`serde_json::to_value`, integral floats as integers,
//! then printed): a value this writer cannot write the same way (a serde error, a raw value, a
//! key written twice) is left to that path, which gives the answer it always gave.

mod names;
mod pretty;
#[cfg(test)]
mod tests;
mod writer;

use serde::Serialize;
use serde_json::Value;

use writer::{Both, Text};

/// A value written as JSON text, compact and pretty-printed.
#[derive(Debug)]
pub struct JsonText {
    /// The compact form, valid UTF-8.
    pub(crate) compact: Vec<u8>,
    /// The form `serde_json::to_string_pretty` writes, escaped.
    pub(crate) pretty: EscapedText,
    /// The length in bytes of the pretty-printed form, unescaped.
    pub(crate) pretty_len: usize,
}

impl JsonText {
    /// The value's text, or `None` when only the value path writes it as it should be written.
    pub(crate) fn of<T: Serialize + ?Sized>(value: &T) -> Option<Self> {
        let mut text = Text::default();
        value.serialize(&mut serde_json::Serializer::with_formatter(std::io::sink(), Both::new(&mut text))).ok()?;
        let pretty = EscapedText(text.pretty.escaped);
        Some(JsonText { compact: text.compact, pretty, pretty_len: text.pretty.len })
    }

    /// Whether the value is an object (and so may travel as `structuredContent`).
    pub(crate) fn is_object(&self) -> bool {
        self.compact.first() == Some(&b'{')
    }

    /// The value read back, for what needs it as a value rather than as text.
    pub(crate) fn to_value(&self) -> Value {
        serde_json::from_slice(&self.compact).unwrap_or(Value::Null)
    }
}

/// A text escaped as it stands within a JSON string, quotes aside: valid UTF-8.
#[derive(Debug)]
pub(crate) struct EscapedText(pub(crate) Vec<u8>);

impl EscapedText {
    /// The text itself.
    pub(crate) fn unescaped(&self) -> String {
        let mut quoted = Vec::with_capacity(self.0.len() + 2);
        quoted.push(b'"');
        quoted.extend_from_slice(&self.0);
        quoted.push(b'"');
        serde_json::from_slice(&quoted).unwrap_or_default()
    }
}
