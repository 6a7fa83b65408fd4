//! How deeply a document nests, measured before it is parsed. The YAML scanner spends time in
//! proportion to the flow depth for every token, so 200 KB of `[` takes it tens of seconds:
//! the depth is read from the scanner's tokens, which stop being read past the limit, so that
//! cost stays bounded by the limit. JSON strings are skipped over by hand (their syntax is two
//! rules), the rest is bracket counting.

use std::marker::PhantomData;
use std::mem::MaybeUninit;

use libyaml_rs as sys;

/// Whether a YAML text nests at most `limit` collections deep. A syntax error ends the count
/// early: the parser reports it afterwards. The error names the line and column.
pub fn check_yaml(text: &str, limit: usize) -> Result<(), String> {
    let mut scanner = Scanner::new(text);
    let mut depth = 0usize;
    while let Some((kind, line, column)) = scanner.next() {
        use sys::yaml_token_type_t::*;
        match kind {
            YAML_BLOCK_SEQUENCE_START_TOKEN
            | YAML_BLOCK_MAPPING_START_TOKEN
            | YAML_FLOW_SEQUENCE_START_TOKEN
            | YAML_FLOW_MAPPING_START_TOKEN => {
                depth += 1;
                if depth > limit {
                    return Err(too_deep(limit, Some((line + 1, column + 1))));
                }
            }
            YAML_BLOCK_END_TOKEN | YAML_FLOW_SEQUENCE_END_TOKEN | YAML_FLOW_MAPPING_END_TOKEN => {
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether a JSON text nests at most `limit` arrays and objects deep. Invalid JSON is counted
/// as far as it goes; the parser reports it afterwards.
pub fn check_json(text: &str, limit: usize) -> Result<(), String> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for byte in text.bytes() {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Err(too_deep(limit, None));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

fn too_deep(limit: usize, at: Option<(usize, usize)>) -> String {
    let at = at.map(|(line, column)| format!(" (at line {line}, column {column})")).unwrap_or_default();
    format!("the document nests deeper than the limit of {limit} levels{at}")
}

/// The YAML token scanner over one text. The parser points into its own allocation (the string
/// reader's state is the parser itself), so it lives in a box and is never moved.
struct Scanner<'a> {
    /// `None` once the tokens are over, or when the parser could not be set up.
    parser: Option<Box<MaybeUninit<sys::yaml_parser_t>>>,
    _text: PhantomData<&'a str>,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Scanner<'a> {
        let mut parser = Box::new(MaybeUninit::<sys::yaml_parser_t>::uninit());
        // SAFETY: the parser is initialized in place before any other use; the input outlives
        // the scanner (the lifetime `'a`), and the box keeps the parser's address fixed.
        let ready = unsafe {
            let p = parser.as_mut_ptr();
            let ready = sys::yaml_parser_initialize(p).ok;
            if ready {
                sys::yaml_parser_set_encoding(p, sys::YAML_UTF8_ENCODING);
                sys::yaml_parser_set_input_string(p, text.as_ptr(), text.len() as u64);
            }
            ready
        };
        // A parser that could not allocate its buffers holds nothing to delete.
        Scanner { parser: ready.then_some(parser), _text: PhantomData }
    }

    /// The next token's type and its 0-based line and column; `None` at the end or at an error.
    fn next(&mut self) -> Option<(sys::yaml_token_type_t, usize, usize)> {
        let parser = self.parser.as_mut()?;
        let mut token = MaybeUninit::<sys::yaml_token_t>::uninit();
        // SAFETY: the parser is initialized; the scan writes the token (zeroed first, also on
        // failure), which is deleted once.
        let (ok, kind, mark) = unsafe {
            let token = token.as_mut_ptr();
            let ok = sys::yaml_parser_scan(parser.as_mut_ptr(), token).ok;
            let (kind, mark) = ((*token).type_, (*token).start_mark);
            sys::yaml_token_delete(token);
            (ok, kind, mark)
        };
        if !ok || matches!(kind, sys::YAML_NO_TOKEN | sys::YAML_STREAM_END_TOKEN) {
            self.finish();
            return None;
        }
        Some((kind, mark.line as usize, mark.column as usize))
    }

    fn finish(&mut self) {
        if let Some(mut parser) = self.parser.take() {
            // SAFETY: the parser was initialized and is deleted once (it was just taken out).
            unsafe { sys::yaml_parser_delete(parser.as_mut_ptr()) }
        }
    }
}

impl Drop for Scanner<'_> {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_depth_counts_flow_and_block_collections() {
        assert!(check_yaml("a: [1, {b: [2]}]\n", 4).is_ok());
        assert!(check_yaml("a: [1, {b: [2]}]\n", 3).is_err());
        assert!(check_yaml("a:\n  b:\n    c: 1\n", 3).is_ok());
        assert!(check_yaml("a:\n  b:\n    c: 1\n", 2).is_err());
        // Brackets inside scalars are text.
        assert!(check_yaml("a: '[[[[[['\nb: \"{{{{\"\nc: x [[[[ y\nd: |\n  [[[[[\n", 1).is_ok());
    }

    #[test]
    fn two_hundred_kilobytes_of_brackets_are_refused_at_once() {
        let err = check_yaml(&"[".repeat(200_000), 64).unwrap_err();
        assert_eq!(err, "the document nests deeper than the limit of 64 levels (at line 1, column 65)");
    }

    #[test]
    fn json_depth_skips_strings() {
        assert!(check_json(r#"{"a": ["[[[[", "\"[[[["]}"#, 2).is_ok());
        assert!(check_json(r#"{"a": [[1]]}"#, 2).is_err());
        assert!(check_json(&"[".repeat(200_000), 64).is_err());
    }

    #[test]
    fn syntax_errors_end_the_count() {
        assert!(check_yaml("a: 'unclosed\n", 1).is_ok());
        assert!(check_yaml("\t- x", 1).is_ok());
    }
}
