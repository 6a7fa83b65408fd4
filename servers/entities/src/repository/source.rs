//! Reading one file: bounded in size, UTF-8 only, parsed as YAML or JSON by its extension. YAML
//! alias expansion is bounded by the parser (a "billion laughs" document is an error, not a hang).

use std::io::Read;
use std::path::Path;

use serde_json::Value;

/// The largest file read, in bytes.
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The text of a file, or why it cannot be had.
pub fn read_text(path: &Path) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    // Reading one byte past the limit tells a too-large file without trusting its reported size.
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("the file is larger than the limit of {MAX_FILE_BYTES} bytes"));
    }
    String::from_utf8(bytes)
        .map_err(|e| format!("the file is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
}

/// The formats a record file may have, told by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Yaml,
    Json,
}

impl Format {
    fn of(path: &str) -> Result<Format, String> {
        match Path::new(path).extension().and_then(|e| e.to_str()) {
            Some("yaml" | "yml") => Ok(Format::Yaml),
            Some("json") => Ok(Format::Json),
            _ => Err("the file is neither YAML (.yaml, .yml) nor JSON (.json)".to_owned()),
        }
    }

    fn parse(self, text: &str) -> Result<Value, String> {
        match self {
            Format::Yaml => yaml_serde::from_str(text).map_err(|e| format!("invalid YAML: {e}")),
            Format::Json => serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}")),
        }
    }
}

/// Reads and parses a file; the error is the reason alone.
pub fn read_document(path: &Path, shown: &str) -> Result<Value, String> {
    let format = Format::of(shown)?;
    format.parse(&read_text(path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_alias_bombs_are_refused() {
        let mut doc = String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for (i, name) in ["b", "c", "d", "e", "f", "g", "h", "i"].iter().enumerate() {
            let prev = ["a", "b", "c", "d", "e", "f", "g", "h"][i];
            let refs = vec![format!("*{prev}"); 9].join(",");
            doc.push_str(&format!("{name}: &{name} [{refs}]\n"));
        }
        let err = Format::Yaml.parse(&doc).unwrap_err();
        assert!(err.contains("repetition limit"), "{err}");
    }

    #[test]
    fn deep_nesting_is_refused() {
        let doc = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(Format::Yaml.parse(&doc).is_err());
        assert!(Format::Json.parse(&doc).is_err());
    }

    #[test]
    fn yaml_keeps_key_order() {
        let v = Format::Yaml.parse("z: 1\na: 2\nm: 3\n").unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "a", "m"]);
    }
}
