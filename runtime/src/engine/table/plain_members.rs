//! The members of an object's text read by looking for its quotes and brackets alone: for text
//! already read as JSON, where a name ends at the next quote unless it is written with an escape,
//! which stops the reading. Reading it with serde costs several times as much.

/// The members of such an object, in order: each name, and whether its value is `null`.
pub(super) struct PlainMembers<'a> {
    text: &'a str,
    at: usize,
    /// Whether the reading stopped at a name written with an escape.
    escaped: bool,
}

impl<'a> PlainMembers<'a> {
    /// The members of `text`: an object, read as JSON already.
    pub(super) fn of(text: &'a str) -> Self {
        debug_assert!(text.starts_with('{'));
        PlainMembers { text, at: 1, escaped: false }
    }

    /// Whether the members stopped at a name written with an escape, before the object's end.
    pub(super) fn stopped_at_escape(&self) -> bool {
        self.escaped
    }

    fn byte(&self) -> u8 {
        self.text.as_bytes().get(self.at).copied().unwrap_or(b'}')
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.byte(), b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    /// From a name's opening quote to past its closing one; the name within, `None` when it is
    /// written with an escape. (A byte loop: names are short, and a searcher costs more to set
    /// up than to run.)
    fn name(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        let start = self.at + 1;
        let mut end = start;
        loop {
            match bytes.get(end) {
                Some(b'"') | None => break,
                Some(b'\\') => return None,
                Some(_) => end += 1,
            }
        }
        self.at = end + 1;
        self.text.get(start..end)
    }

    /// From a string value's opening quote to past its closing one, escapes and all.
    fn skip_string(&mut self) {
        let bytes = self.text.as_bytes();
        let mut at = self.at + 1;
        while let Some(&byte) = bytes.get(at) {
            at += 1;
            match byte {
                b'"' => break,
                b'\\' => at += 1,
                _ => {}
            }
        }
        self.at = at;
    }

    /// Past one value, to the comma or bracket that ends it.
    fn skip_value(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.byte() {
                b'"' => {
                    self.skip_string();
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth == 0 => return,
                b'}' | b']' => depth -= 1,
                b',' if depth == 0 => return,
                _ => {}
            }
            self.at += 1;
        }
    }
}

impl<'a> Iterator for PlainMembers<'a> {
    type Item = (&'a str, bool);

    fn next(&mut self) -> Option<Self::Item> {
        self.skip_whitespace();
        if self.byte() == b',' {
            self.at += 1;
            self.skip_whitespace();
        }
        if self.byte() != b'"' {
            return None;
        }
        let Some(name) = self.name() else {
            self.escaped = true;
            return None;
        };
        self.skip_whitespace();
        // The colon.
        self.at += 1;
        self.skip_whitespace();
        let null = self.byte() == b'n';
        self.skip_value();
        Some((name, null))
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::Value;

    use super::*;

    /// The members found are the object's, in order, as serde reads them, up to a name written
    /// with an escape (which serde reads only as an owned string).
    #[test]
    fn finds_the_members_serde_reads() {
        let texts = [
            "{}",
            " {} ".trim(),
            r#"{"a":1,"b":null}"#,
            r#"{ "a" : { "x": [1, {"y": "}]"}], "n": null } ,"b":"[,{" , "c" :[ ], "d":nullish}"#,
            "{\n\t\"a\"\r: -1.5e3,\"\":true,\"a\":false}",
            r#"{"s":"with spaces, commas: and \u00e9","t":[[],[[]]]}"#,
            r#"{"a":"x\"y","b":["\\",{"c":"\"}"}],"d":null}"#,
            r#"{"a":"\\\"","b":1}"#,
            r#"{"a":1,"\u0062":2,"c":3}"#,
            r#"{"\"":null}"#,
            r#"{"a\\":1}"#,
        ];
        for text in texts {
            // Only JSON is ever read so.
            let Ok(value) = Value::deserialize(&mut serde_json::Deserializer::from_str(text)) else { continue };
            let mut expected = Vec::new();
            let mut reader = serde_json::Deserializer::from_str(text);
            let escaped = serde::Deserializer::deserialize_map(&mut reader, Collect(&mut expected)).is_err();
            let mut members = PlainMembers::of(text);
            let found: Vec<(&str, bool)> = members.by_ref().collect();
            assert_eq!((found, members.stopped_at_escape()), (expected, escaped), "{text} ({value})");
        }
    }

    /// Each member's name and whether its value is null, as serde reads them; a name written with
    /// an escape fails.
    struct Collect<'a, 'v>(&'v mut Vec<(&'a str, bool)>);

    impl<'de, 'v> serde::de::Visitor<'de> for Collect<'de, 'v> {
        type Value = ();

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(name) = map.next_key::<&'de str>()? {
                let value = map.next_value::<Value>()?;
                self.0.push((name, value.is_null()));
            }
            Ok(())
        }
    }
}
