//! The formatter that writes one value twice as serde walks it: compact, and pretty-printed
//! (escaped, as a text block's string holds it: see [`Pretty`]).
//!
//! Numbers are written as the value path leaves them: an `f32` as the `f64` it becomes in a
//! value, an integral float as an integer. Where that path fails or writes differently (an
//! integer past 64 bits, a raw value, a key twice in one object), writing fails, and the caller
//! takes that path.

use std::io::{self, Write};

use serde_json::ser::{CharEscape, CompactFormatter, Formatter};

use super::names::Names;
use super::pretty::Pretty;

/// The two texts being written.
pub(super) struct Text {
    pub(super) compact: Vec<u8>,
    pub(super) pretty: Pretty,
}

impl Default for Text {
    /// Room for a small result, which then grows no buffer on the way.
    fn default() -> Self {
        Text { compact: Vec::with_capacity(64), pretty: Pretty::with_capacity(128) }
    }
}

/// Writes what serde hands a formatter into both texts of a [`Text`]; the writer serde gives it
/// is not written to.
pub(super) struct Both<'a> {
    text: &'a mut Text,
    /// Within a member's name: numbers there are written as serde writes a key, not normalized.
    in_key: bool,
    names: Names,
    /// Where the member name being written starts in the compact text.
    name_start: usize,
}

impl<'a> Both<'a> {
    pub(super) fn new(text: &'a mut Text) -> Self {
        Both { text, in_key: false, names: Names::default(), name_start: 0 }
    }

    /// Writes `f` into the compact text, and what it wrote into the pretty one too (a number or a
    /// literal, which needs no escaping there).
    fn scalar(&mut self, f: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> io::Result<()> {
        let start = self.text.compact.len();
        f(&mut self.text.compact)?;
        self.text.pretty.plain(&self.text.compact[start..]);
        Ok(())
    }

    /// [`Both::scalar`] for what has quotes or backslashes, escaped in the pretty text.
    fn escaped(&mut self, f: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> io::Result<()> {
        let start = self.text.compact.len();
        f(&mut self.text.compact)?;
        self.text.pretty.escape(&self.text.compact[start..]);
        Ok(())
    }

    /// A float as a value holds it: integral and within an f64's exact integers, an integer.
    fn float(&mut self, f: f64) -> io::Result<()> {
        /// The largest integer an f64 holds exactly (as `numbers::number` has it).
        const MAX_SAFE: f64 = 9_007_199_254_740_992.0;
        // Within those integers the cast is exact, so the round trip finds the integral ones
        // (-0.0 among them, written 0 as a value writes it) with no call to `fract`.
        if f.abs() <= MAX_SAFE && (f as i64) as f64 == f {
            self.scalar(|out| CompactFormatter.write_i64(out, f as i64))
        } else {
            self.scalar(|out| CompactFormatter.write_f64(out, f))
        }
    }
}

/// What the value path refuses or writes otherwise: the caller takes it.
fn unlike_a_value() -> io::Error {
    io::Error::other("written as a value")
}

impl<'a> Formatter for Both<'a> {
    fn write_null<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.scalar(|out| CompactFormatter.write_null(out))
    }

    fn write_bool<W: ?Sized + Write>(&mut self, _: &mut W, value: bool) -> io::Result<()> {
        self.scalar(|out| CompactFormatter.write_bool(out, value))
    }

    fn write_i8<W: ?Sized + Write>(&mut self, _: &mut W, value: i8) -> io::Result<()> {
        self.scalar(|out| CompactFormatter.write_i8(out, value))
    }

    fn write_i16<W: ?Sized + Write>(&mut self, _: &mut W, value: i16) -> io::Result<()> {
        self.scalar(|out| CompactFormatter.write_i16(out, value))
    }

    fn write_i32<W: ?Sized + Write>(&mut self, _: &mut W, value: i32) -> io::Result<()> {
        self.scalar(|out| CompactFormatter.write_i32(out, value))
    }

    fn write_i64<W: ?Sized + Write>(&mut self, _: &mut W, value: i64) -> io::Result<()> {
        self.scalar(|out| CompactFormatter.write_i64(out, value))
    }

    fn write_i128<W: ?Sized + Write>(&mut self, _: &mut W, value: i128) -> io::Result<()> {
        // A value holds 64 bits: as a key it is text, any size.
        if !self.in_key && i64::try_from(value).is_err() && u64::try_from(value).is_err() {
            return Err(unlike_a_value());
        }
        self.scalar(|out| CompactFormatter.write_i128(out, value))
    }

    fn write_u8<W: ?Sized + Write>(&mut self, _: &mut W, value: u8) -> io::Result<()> {
        self.scalar(|out| CompactFormatter.write_u8(out, value))
    }

    fn write_u16<W: ?Sized + Write>(&mut self, _: &mut W, value: u16) -> io::Result<()> {
        self.scalar(|out| CompactFormatter.write_u16(out, value))
    }

    fn write_u32<W: ?Sized + Write>(&mut self, _: &mut W, value: u32) -> io::Result<()> {
        self.scalar(|out| CompactFormatter.write_u32(out, value))
    }

    fn write_u64<W: ?Sized + Write>(&mut self, _: &mut W, value: u64) -> io::Result<()> {
        self.scalar(|out| CompactFormatter.write_u64(out, value))
    }

    fn write_u128<W: ?Sized + Write>(&mut self, _: &mut W, value: u128) -> io::Result<()> {
        if !self.in_key && u64::try_from(value).is_err() {
            return Err(unlike_a_value());
        }
        self.scalar(|out| CompactFormatter.write_u128(out, value))
    }

    fn write_f32<W: ?Sized + Write>(&mut self, _: &mut W, value: f32) -> io::Result<()> {
        match self.in_key {
            true => self.scalar(|out| CompactFormatter.write_f32(out, value)),
            false => self.float(f64::from(value)),
        }
    }

    fn write_f64<W: ?Sized + Write>(&mut self, _: &mut W, value: f64) -> io::Result<()> {
        match self.in_key {
            true => self.scalar(|out| CompactFormatter.write_f64(out, value)),
            false => self.float(value),
        }
    }

    fn write_number_str<W: ?Sized + Write>(&mut self, _: &mut W, value: &str) -> io::Result<()> {
        self.scalar(|out| CompactFormatter.write_number_str(out, value))
    }

    fn begin_string<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.escaped(|out| CompactFormatter.begin_string(out))
    }

    fn end_string<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.escaped(|out| CompactFormatter.end_string(out))
    }

    /// Between its escapes, a string holds no quote, backslash or control character: nothing
    /// to escape in the pretty text either.
    fn write_string_fragment<W: ?Sized + Write>(&mut self, _: &mut W, fragment: &str) -> io::Result<()> {
        self.text.compact.extend_from_slice(fragment.as_bytes());
        self.text.pretty.plain(fragment.as_bytes());
        Ok(())
    }

    fn write_char_escape<W: ?Sized + Write>(&mut self, _: &mut W, escape: CharEscape) -> io::Result<()> {
        self.escaped(|out| CompactFormatter.write_char_escape(out, escape))
    }

    fn write_byte_array<W: ?Sized + Write>(&mut self, writer: &mut W, value: &[u8]) -> io::Result<()> {
        self.begin_array(writer)?;
        for (i, byte) in value.iter().enumerate() {
            self.begin_array_value(writer, i == 0)?;
            self.write_u8(writer, *byte)?;
            self.end_array_value(writer)?;
        }
        self.end_array(writer)
    }

    fn begin_array<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.text.pretty.open(b'[');
        CompactFormatter.begin_array(&mut self.text.compact)
    }

    fn end_array<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.text.pretty.close(b']');
        CompactFormatter.end_array(&mut self.text.compact)
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, _: &mut W, first: bool) -> io::Result<()> {
        self.text.pretty.next(first);
        CompactFormatter.begin_array_value(&mut self.text.compact, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.text.pretty.after_value();
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.names.open();
        self.text.pretty.open(b'{');
        CompactFormatter.begin_object(&mut self.text.compact)
    }

    fn end_object<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        // A value keeps one member of a name (the last one's value, in the first one's place).
        if !self.names.close(&self.text.compact) {
            return Err(unlike_a_value());
        }
        self.text.pretty.close(b'}');
        CompactFormatter.end_object(&mut self.text.compact)
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, _: &mut W, first: bool) -> io::Result<()> {
        CompactFormatter.begin_object_key(&mut self.text.compact, first)?;
        self.name_start = self.text.compact.len();
        self.in_key = true;
        self.text.pretty.next(first);
        Ok(())
    }

    fn end_object_key<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.in_key = false;
        self.names.add(self.name_start..self.text.compact.len());
        Ok(())
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.text.pretty.before_value();
        CompactFormatter.begin_object_value(&mut self.text.compact)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.text.pretty.after_value();
        Ok(())
    }

    fn write_raw_fragment<W: ?Sized + Write>(&mut self, _: &mut W, _: &str) -> io::Result<()> {
        // A value reads a raw value and writes it anew; the text would keep it as it is.
        Err(unlike_a_value())
    }
}
