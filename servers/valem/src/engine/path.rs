//! Canonical JSON Path addresses (`$`, `$.a.b`, `$.items[0].x`, `$.items[*].x`): parsing,
//! printing, and reading and writing a document at an address.

use std::fmt;

use serde_json::{Map, Value};

/// One step of an address.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seg {
    Key(String),
    Index(usize),
    /// `[*]`: every element of an array.
    Any,
}

/// A parsed address; the empty path is the document root `$`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Path(pub Vec<Seg>);

/// The grammar `Path::parse` reads, as an ECMA-262 regular expression without anchors (schemas
/// state it as a `pattern`): `$`, then `.name`, `[index]`, `[*]`, `["key"]` or `['key']` steps.
/// An index has at most 19 digits, which every `usize` parse of it takes.
pub const GRAMMAR: &str = r#"\$(?:\.[A-Za-z_$][A-Za-z0-9_$-]*|\[(?:\*|[0-9]{1,19}|"[^"\]]*"|'[^'\]]*')\])*"#;

/// Why a string is not a canonical address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathError(pub String);

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Path {
    pub fn root() -> Path {
        Path(Vec::new())
    }

    /// Parses `$`, `$.name`, `$["odd key"]`, `[3]`, `[*]`; names are `[A-Za-z_$][A-Za-z0-9_$-]*`.
    pub fn parse(text: &str) -> Result<Path, PathError> {
        let bad = |why: &str| PathError(format!("{text:?} is not a canonical JSON Path address: {why}"));
        let rest = text.strip_prefix('$').ok_or_else(|| bad("it must start with `$`"))?;
        let mut segs = Vec::new();
        let bytes = rest.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'.' => {
                    let start = i + 1;
                    let mut end = start;
                    while end < bytes.len() && is_name_byte(bytes[end], end == start) {
                        end += 1;
                    }
                    if end == start {
                        return Err(bad("a `.` must be followed by a field name"));
                    }
                    segs.push(Seg::Key(rest[start..end].to_owned()));
                    i = end;
                }
                b'[' => {
                    let close = rest[i..].find(']').map(|c| c + i).ok_or_else(|| bad("unclosed `[`"))?;
                    let inner = &rest[i + 1..close];
                    let seg = if inner == "*" {
                        Seg::Any
                    } else if let Some(quoted) = quoted_key(inner) {
                        Seg::Key(quoted)
                    } else if !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_digit()) {
                        Seg::Index(inner.parse().map_err(|_| bad("index out of range"))?)
                    } else {
                        return Err(bad("brackets hold an index, `*` or a quoted name"));
                    };
                    segs.push(seg);
                    i = close + 1;
                }
                _ => return Err(bad("expected `.` or `[` after `$`")),
            }
        }
        Ok(Path(segs))
    }

    pub fn segs(&self) -> &[Seg] {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    pub fn has_wildcard(&self) -> bool {
        self.0.contains(&Seg::Any)
    }

    pub fn child(&self, seg: Seg) -> Path {
        let mut segs = self.0.clone();
        segs.push(seg);
        Path(segs)
    }

    /// The address one step up; `None` at the root.
    pub fn parent(&self) -> Option<Path> {
        self.0.split_last().map(|(_, parent)| Path(parent.to_vec()))
    }

    pub fn join(&self, rest: &[Seg]) -> Path {
        let mut segs = self.0.clone();
        segs.extend_from_slice(rest);
        Path(segs)
    }

    /// Whether one of the two addresses is a prefix of the other, `[*]` and indices matching any
    /// index: a write at one can change what is read at the other.
    pub fn overlaps(&self, other: &Path) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| seg_matches(a, b))
    }

    /// Whether this pattern (which may hold `[*]`) names the concrete address `concrete`.
    pub fn matches(&self, concrete: &Path) -> bool {
        self.0.len() == concrete.0.len() && self.overlaps(concrete)
    }

    /// The value at this concrete address.
    pub fn get<'v>(&self, doc: &'v Value) -> Option<&'v Value> {
        self.0.iter().try_fold(doc, |v, seg| match (seg, v) {
            (Seg::Key(k), Value::Object(m)) => m.get(k),
            (Seg::Index(i), Value::Array(a)) => a.get(*i),
            _ => None,
        })
    }

    /// Writes `value` at this concrete address, creating objects and arrays on the way (an array
    /// grown past its end is padded with nulls). Fails only when a scalar is in the way.
    pub fn set(&self, doc: &mut Value, value: Value) -> Result<(), PathError> {
        let mut cur = doc;
        for (n, seg) in self.0.iter().enumerate() {
            let next_is_index = matches!(self.0.get(n + 1), Some(Seg::Index(_)));
            let fresh = || if next_is_index { Value::Array(Vec::new()) } else { Value::Object(Map::new()) };
            if cur.is_null() {
                *cur = match seg {
                    Seg::Index(_) => Value::Array(Vec::new()),
                    _ => Value::Object(Map::new()),
                };
            }
            cur = match (seg, cur) {
                (Seg::Key(k), Value::Object(m)) => m.entry(k.clone()).or_insert_with(fresh),
                (Seg::Index(i), Value::Array(a)) => {
                    while a.len() <= *i {
                        a.push(Value::Null);
                    }
                    let slot = &mut a[*i];
                    if slot.is_null() && n + 1 < self.0.len() {
                        *slot = fresh();
                    }
                    slot
                }
                (Seg::Any, _) => return Err(PathError(format!("{self} has a wildcard and names no single field"))),
                _ => {
                    return Err(PathError(format!(
                        "cannot write {self}: {} is not a container",
                        Path(self.0[..n].to_vec())
                    )));
                }
            };
        }
        *cur = value;
        Ok(())
    }

    /// Removes the value at this concrete address; an array element becomes null, keeping indices.
    pub fn remove(&self, doc: &mut Value) -> Option<Value> {
        let last = self.0.last()?;
        let container = self.parent()?.get_mut(doc)?;
        match (last, container) {
            (Seg::Key(k), Value::Object(m)) => m.shift_remove(k),
            (Seg::Index(i), Value::Array(a)) if *i + 1 == a.len() => a.pop(),
            (Seg::Index(i), Value::Array(a)) => a.get_mut(*i).map(Value::take),
            _ => None,
        }
    }

    pub fn get_mut<'v>(&self, doc: &'v mut Value) -> Option<&'v mut Value> {
        self.0.iter().try_fold(doc, |v, seg| match (seg, v) {
            (Seg::Key(k), Value::Object(m)) => m.get_mut(k),
            (Seg::Index(i), Value::Array(a)) => a.get_mut(*i),
            _ => None,
        })
    }

    /// Every concrete address this pattern names in `doc`, in document order.
    pub fn expand(&self, doc: &Value) -> Vec<Path> {
        let mut out = vec![(Path::root(), Some(doc))];
        for seg in &self.0 {
            let mut next = Vec::new();
            for (path, value) in out {
                match seg {
                    Seg::Any => {
                        if let Some(Value::Array(items)) = value {
                            for (i, item) in items.iter().enumerate() {
                                next.push((path.child(Seg::Index(i)), Some(item)));
                            }
                        }
                    }
                    Seg::Key(k) => next.push((path.child(seg.clone()), value.and_then(|v| v.get(k)))),
                    Seg::Index(i) => next.push((path.child(seg.clone()), value.and_then(|v| v.get(i)))),
                }
            }
            out = next;
        }
        out.into_iter().map(|(p, _)| p).collect()
    }
}

fn seg_matches(a: &Seg, b: &Seg) -> bool {
    match (a, b) {
        (Seg::Any, _) | (_, Seg::Any) => true,
        (x, y) => x == y,
    }
}

fn is_name_byte(b: u8, first: bool) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$' || (!first && (b.is_ascii_digit() || b == b'-'))
}

fn quoted_key(inner: &str) -> Option<String> {
    let q = inner.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = inner.strip_prefix(q)?.strip_suffix(q)?;
    (!body.contains(q)).then(|| body.to_owned())
}

/// An address is stored as its canonical text (`$.items[0].x`).
impl serde::Serialize for Path {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Path {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Path, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Path::parse(&text).map_err(|e| serde::de::Error::custom(e.0))
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("$")?;
        for seg in &self.0 {
            match seg {
                Seg::Key(k) if !k.is_empty() && k.bytes().enumerate().all(|(i, b)| is_name_byte(b, i == 0)) => {
                    write!(f, ".{k}")?
                }
                Seg::Key(k) => write!(f, "[\"{k}\"]")?,
                Seg::Index(i) => write!(f, "[{i}]")?,
                Seg::Any => f.write_str("[*]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn addresses_round_trip() {
        for text in ["$", "$.a", "$.a.b[0].c", "$.items[*].lineTotal", "$[\"odd key\"].x"] {
            assert_eq!(Path::parse(text).unwrap().to_string(), text);
        }
        for bad in ["", "a.b", "$.", "$.a[", "$.a[x]", "$..a", "$.1a"] {
            assert!(Path::parse(bad).is_err(), "{bad}");
        }
    }

    /// The pattern schemas state and the parser agree on every string: random ones over the
    /// grammar's alphabet, checked with the validator arguments are checked with.
    #[test]
    fn the_grammar_pattern_accepts_what_the_parser_reads() {
        let pattern = json!({ "type": "string", "pattern": format!("^{GRAMMAR}$") });
        let validator = jsonschema::validator_for(&pattern).unwrap();
        let alphabet: Vec<char> = "$.[]*\"'aZ_-09 é".chars().collect();
        let mut rng = fastrand::Rng::with_seed(0xadd7e55);
        let (mut read, mut refused) = (0, 0);
        for _ in 0..20_000 {
            let len = rng.usize(0..10);
            let mut text: String = (0..len).map(|_| alphabet[rng.usize(..alphabet.len())]).collect();
            if rng.bool() {
                text.insert(0, '$');
            }
            let parsed = Path::parse(&text).is_ok();
            assert_eq!(validator.is_valid(&json!(text)), parsed, "{text:?}");
            if parsed { read += 1 } else { refused += 1 }
        }
        assert!(read > 1_000 && refused > 1_000, "both sides are exercised: {read} read, {refused} refused");
        assert!(validator.is_valid(&json!("$.items[1234567890123456789].x")));
    }

    #[test]
    fn set_creates_containers_and_get_reads_them() {
        let mut doc = json!({});
        Path::parse("$.items[1].name").unwrap().set(&mut doc, json!("Bread")).unwrap();
        assert_eq!(doc, json!({ "items": [null, { "name": "Bread" }] }));
        assert_eq!(Path::parse("$.items[1].name").unwrap().get(&doc), Some(&json!("Bread")));
        assert!(Path::parse("$.items[1].name.x").unwrap().set(&mut doc, json!(1)).is_err());
    }

    #[test]
    fn overlap_is_a_prefix_either_way() {
        let p = |s| Path::parse(s).unwrap();
        assert!(p("$.items").overlaps(&p("$.items[*].price")));
        assert!(p("$.items[2].price").overlaps(&p("$.items[*]")));
        assert!(!p("$.items[*].price").overlaps(&p("$.items[*].qty")));
        assert_eq!(p("$.items[*].x").expand(&json!({ "items": [1, 2] })).len(), 2);
    }
}
