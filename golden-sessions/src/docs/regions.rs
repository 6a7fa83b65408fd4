//! Generated regions of a docs page: the text between `<!-- generated:KIND key=value... -->` and
//! `<!-- end generated -->` belongs to the generator; everything else to the writer.
//!
//! ```
//! use tooltable_golden::docs::regions::{find, regenerate};
//!
//! let page = "Intro.\n<!-- generated:capture session=tools keys=sorted -->\nold\n<!-- end generated -->\n";
//! let regions = find(page)?;
//! assert_eq!((regions[0].kind.as_str(), regions[0].arg("session"), regions[0].line), ("capture", Some("tools"), 2));
//! assert_eq!(&page[regions[0].body.clone()], "old\n");
//!
//! let page = regenerate(page, |region| Ok(format!("made for {}\n", region.kind)))?;
//! assert_eq!(page, "Intro.\n<!-- generated:capture session=tools keys=sorted -->\nmade for capture\n<!-- end generated -->\n");
//! assert!(find("<!-- generated:walkthrough -->\nno end\n").is_err());
//! # Ok::<(), String>(())
//! ```

/// One region: what to generate, and where its body sits in the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// What it holds (`tools-purpose`, `walkthrough`).
    pub kind: String,
    /// Its `key=value` words, in order.
    pub args: Vec<(String, String)>,
    /// Byte range of the body (between the two marker lines).
    pub body: std::ops::Range<usize>,
    /// The line of the opening marker, from 1.
    pub line: usize,
}

impl Region {
    /// The value of its argument `key`.
    pub fn arg(&self, key: &str) -> Option<&str> {
        self.args.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// An opening marker waiting for its end.
struct Opening {
    kind: String,
    args: Vec<(String, String)>,
    body_start: usize,
    line: usize,
}

const OPEN: &str = "<!-- generated:";
const CLOSE: &str = "<!-- end generated -->";

/// The regions of a page, in order; an opening marker without its end is an error.
pub fn find(page: &str) -> Result<Vec<Region>, String> {
    let mut regions = Vec::new();
    let mut offset = 0;
    let mut open: Option<Opening> = None;
    for (i, line) in page.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim();
        if let Some(spec) = trimmed.strip_prefix(OPEN).and_then(|s| s.strip_suffix("-->")) {
            if open.is_some() {
                return Err(format!("line {}: a region opens inside another", i + 1));
            }
            let mut words = spec.split_whitespace();
            let kind = words.next().unwrap_or("").to_owned();
            let args = words.filter_map(|w| w.split_once('=')).map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
            open = Some(Opening { kind, args, body_start: offset, line: i + 1 });
        } else if trimmed == CLOSE {
            let o = open.take().ok_or(format!("line {}: an end marker without a start", i + 1))?;
            regions.push(Region { kind: o.kind, args: o.args, body: o.body_start..start, line: o.line });
        }
    }
    match open {
        Some(o) => Err(format!("line {}: a region without `{CLOSE}`", o.line)),
        None => Ok(regions),
    }
}

/// The page with each region's body replaced by what `generate` gives for it.
pub fn regenerate(page: &str, mut generate: impl FnMut(&Region) -> Result<String, String>) -> Result<String, String> {
    let mut out = String::with_capacity(page.len());
    let mut last = 0;
    for region in find(page)? {
        out.push_str(&page[last..region.body.start]);
        let body = generate(&region).map_err(|e| format!("line {}: {e}", region.line))?;
        out.push_str(&body);
        if !body.is_empty() && !body.ends_with('\n') {
            out.push('\n');
        }
        last = region.body.end;
    }
    out.push_str(&page[last..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_only_region_bodies() {
        let page = "# Title\n<!-- generated:table server=x -->\nold\n<!-- end generated -->\nprose\n";
        let out = regenerate(page, |r| Ok(format!("new {} {}\n", r.kind, r.arg("server").unwrap()))).unwrap();
        assert_eq!(out, "# Title\n<!-- generated:table server=x -->\nnew table x\n<!-- end generated -->\nprose\n");
        assert!(find("<!-- generated:a -->\n").is_err());
        assert!(find("<!-- end generated -->\n").is_err());
    }
}
