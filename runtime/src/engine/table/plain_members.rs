//! The members of an object's text read by looking for its quotes and brackets alone: for text
//! already read as JSON and written without a backslash, where a string ends at the next quote.
//! Reading it with serde costs several times as much.

/// The members of such an object, in order: each name, and whether its value is `null`.
pub(super) struct PlainMembers<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> PlainMembers<'a> {
    /// The members of `text`: an object, read as JSON already, with no backslash.
    pub(super) fn of(text: &'a str) -> Self {
        debug_assert!(text.starts_with('{') && !text.as_bytes().contains(&b'\\'));
        PlainMembers { text, at: 1 }
    }

    fn byte(&self) -> u8 {
        self.text.as_bytes().get(self.at).copied().unwrap_or(b'}')
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.byte(), b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    /// From an opening quote to past its closing one; the string within. (A byte loop: the
    /// strings are short, and a searcher costs more to set up than to run.)
    fn string(&mut self) -> &'a str {
        let bytes = self.text.as_bytes();
        let start = self.at + 1;
        let mut end = start;
        while end < bytes.len() && bytes[end] != b'"' {
            end += 1;
        }
        self.at = end + 1;
        self.text.get(start..end).unwrap_or_default()
    }

    /// Past one value, to the comma or bracket that ends it.
    fn skip_value(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.byte() {
                b'"' => {
                    self.string();
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
        let name = self.string();
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

    /// The members found are the object's, in order, as serde reads them.
    #[test]
    fn finds_the_members_serde_reads() {
        let texts = [
            "{}",
            " {} ".trim(),
            r#"{"a":1,"b":null}"#,
            r#"{ "a" : { "x": [1, {"y": "}]"}], "n": null } ,"b":"[,{" , "c" :[ ], "d":nullish}"#,
            "{\n\t\"a\"\r: -1.5e3,\"\":true,\"a\":false}",
            r#"{"s":"with spaces, commas: and \u00e9","t":[[],[[]]]}"#,
        ];
        for text in texts.into_iter().filter(|text| !text.contains('\\')) {
            let Ok(value) = Value::deserialize(&mut serde_json::Deserializer::from_str(text)) else { continue };
            let mut expected = Vec::new();
            let mut reader = serde_json::Deserializer::from_str(text);
            let _ = serde::Deserializer::deserialize_map(&mut reader, Collect(&mut expected));
            let found: Vec<(String, bool)> = PlainMembers::of(text).map(|(k, n)| (k.to_owned(), n)).collect();
            assert_eq!(found, expected, "{text} ({value})");
        }
    }

    /// Each member's name and whether its value is null, as serde reads them.
    struct Collect<'v>(&'v mut Vec<(String, bool)>);

    impl<'de> serde::de::Visitor<'de> for Collect<'_> {
        type Value = ();

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(name) = map.next_key::<String>()? {
                let value = map.next_value::<Value>()?;
                self.0.push((name, value.is_null()));
            }
            Ok(())
        }
    }
}
