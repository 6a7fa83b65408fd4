//! Reading one file: a regular file only (opened without blocking and without following a
//! symlink, its type checked on the open file), bounded in size, UTF-8 only, its nesting
//! bounded before it is parsed as YAML or JSON. YAML alias expansion is bounded by the parser
//! (a "billion laughs" document is an error, not a hang).

use std::fs::{File, FileType, Metadata};
use std::io::Read;
use std::path::Path;

use serde::de::DeserializeOwned;

use super::depth;

/// The bounds on what one file may cost to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest file read, in bytes.
    pub max_file_bytes: u64,
    /// The deepest nesting of collections a document may have.
    pub max_depth: usize,
}

/// A 4 MiB YAML file of records parses in about 0.4 s and 140 MB; a 16 MiB one took 5 s and
/// 800 MB. Nesting beyond a few levels is no record anyone writes.
impl Default for Limits {
    fn default() -> Self {
        Limits { max_file_bytes: 4 * 1024 * 1024, max_depth: 64 }
    }
}

/// Why a regular file is wanted and something else is there.
pub fn not_regular(kind: FileType) -> String {
    use std::os::unix::fs::FileTypeExt;
    let what = if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a named pipe"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_symlink() {
        "a symlink"
    } else {
        "not a file"
    };
    format!("it is {what}, not a regular file, and is not read")
}

/// Opens a regular file for reading. `O_NONBLOCK` makes opening a named pipe return at once
/// (it would otherwise wait for a writer); `O_NOFOLLOW` refuses a symlink put in the place of
/// the checked path. The type is checked on the open file, so it cannot change in between.
fn open_regular(path: &Path) -> Result<(File, Metadata), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| e.to_string())?;
    let metadata = file.metadata().map_err(|e| e.to_string())?;
    if !metadata.is_file() {
        return Err(not_regular(metadata.file_type()));
    }
    Ok((file, metadata))
}

/// The text of a regular file and its metadata as opened, or why it cannot be had.
pub fn read_text(path: &Path, limits: &Limits) -> Result<(String, Metadata), String> {
    let (file, metadata) = open_regular(path)?;
    let max = limits.max_file_bytes;
    if metadata.len() > max {
        return Err(too_large(max));
    }
    let mut bytes = Vec::new();
    // Reading one byte past the limit tells a too-large file without trusting its reported size.
    file.take(max + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > max {
        return Err(too_large(max));
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("the file is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))?;
    Ok((text, metadata))
}

fn too_large(max: u64) -> String {
    format!("the file is larger than the limit of {max} bytes (--max-file-bytes)")
}

/// The formats a file may have, told by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
}

impl Format {
    pub fn of(path: &str) -> Result<Format, String> {
        match Path::new(path).extension().and_then(|e| e.to_str()) {
            Some("yaml" | "yml") => Ok(Format::Yaml),
            Some("json") => Ok(Format::Json),
            _ => Err("the file is neither YAML (.yaml, .yml) nor JSON (.json)".to_owned()),
        }
    }

    /// Parses `text` once its nesting is known to be within `limits`.
    pub fn parse<T: DeserializeOwned>(self, text: &str, limits: &Limits) -> Result<T, String> {
        match self {
            Format::Yaml => {
                depth::check_yaml(text, limits.max_depth)?;
                yaml_serde::from_str(text).map_err(|e| format!("invalid YAML: {e}"))
            }
            Format::Json => {
                depth::check_json(text, limits.max_depth)?;
                serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn parse(format: Format, text: &str) -> Result<Value, String> {
        format.parse(text, &Limits::default())
    }

    #[test]
    fn yaml_alias_bombs_are_refused() {
        let mut doc = String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for (i, name) in ["b", "c", "d", "e", "f", "g", "h", "i"].iter().enumerate() {
            let prev = ["a", "b", "c", "d", "e", "f", "g", "h"][i];
            let refs = vec![format!("*{prev}"); 9].join(",");
            doc.push_str(&format!("{name}: &{name} [{refs}]\n"));
        }
        let err = parse(Format::Yaml, &doc).unwrap_err();
        assert!(err.contains("repetition limit"), "{err}");
    }

    #[test]
    fn deep_nesting_is_refused_before_parsing() {
        let doc = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
        for format in [Format::Yaml, Format::Json] {
            let err = parse(format, &doc).unwrap_err();
            assert!(err.contains("nests deeper than the limit of 64 levels"), "{err}");
        }
        let limits = Limits { max_depth: 2, ..Limits::default() };
        assert!(Format::Yaml.parse::<Value>("a: [1]\n", &limits).is_ok());
        assert!(Format::Yaml.parse::<Value>("a: [[1]]\n", &limits).is_err());
    }

    #[test]
    fn yaml_keeps_key_order() {
        let v = parse(Format::Yaml, "z: 1\na: 2\nm: 3\n").unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "a", "m"]);
    }

    #[test]
    fn a_named_pipe_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("x.yaml");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let err = read_text(&fifo, &Limits::default()).unwrap_err();
        assert_eq!(err, "it is a named pipe, not a regular file, and is not read");
        let err = read_text(dir.path(), &Limits::default()).unwrap_err();
        assert!(err.contains("a directory"), "{err}");
    }

    #[test]
    fn a_symlink_in_place_of_the_file_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("real.yaml"), "a: 1\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("real.yaml"), dir.path().join("link.yaml")).unwrap();
        assert!(read_text(&dir.path().join("link.yaml"), &Limits::default()).is_err());
        assert!(read_text(&dir.path().join("real.yaml"), &Limits::default()).is_ok());
    }
}
