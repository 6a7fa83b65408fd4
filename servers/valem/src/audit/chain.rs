//! The hash chain: each record holds the previous record's hash and its own,
//! `hex(sha256(prevHash + "\n" + canonical))`, where canonical is the record without `prevHash`
//! and `hash`, keys sorted at every level, compact UTF-8.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The `prevHash` of the first record of a trail.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// `verify_audit`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Verification {
    pub valid: bool,
    /// The records looked at, the broken one included.
    pub records_checked: usize,
    /// The sequence of the first record that breaks the chain; null when it holds.
    pub first_broken_sequence: Option<u64>,
    /// `ok`, or what is wrong with the first broken record.
    pub detail: String,
}

/// `record` with `sequence`, `prevHash` and `hash` set, to follow a record whose hash is `prev`.
pub fn seal(mut record: Map<String, Value>, sequence: u64, prev: &str) -> Map<String, Value> {
    record.insert("sequence".into(), sequence.into());
    record.remove("prevHash");
    record.remove("hash");
    let hash = hash(prev, &record);
    record.insert("prevHash".into(), prev.into());
    record.insert("hash".into(), hash.into());
    record
}

fn hash(prev: &str, content: &Map<String, Value>) -> String {
    let mut canonical = String::new();
    write_canonical(&mut canonical, &Value::Object(content.clone()));
    let digest = Sha256::new().chain_update(prev).chain_update("\n").chain_update(canonical).finalize();
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compact JSON with every object's keys sorted.
fn write_canonical(out: &mut String, value: &Value) {
    match value {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (n, k) in keys.into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(out, &m[k]);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (n, v) in a.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write_canonical(out, v);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Walks `records` in order, the first expected to follow `anchor` (`GENESIS` for a whole
/// trail), and stops at the first that breaks the chain.
pub fn verify(records: &[Value], anchor: &str) -> Verification {
    verify_from(records, anchor, 0)
}

/// `verify` of a part of a trail whose first record is at `position` (0 for the first): counts
/// and positions are of the whole trail.
pub fn verify_from(records: &[Value], anchor: &str, position: usize) -> Verification {
    let mut prev = anchor.to_owned();
    for (n, record) in records.iter().enumerate() {
        let n = position + n;
        let broken = |sequence: Option<u64>, detail: String| Verification {
            valid: false,
            records_checked: n + 1,
            first_broken_sequence: sequence,
            detail,
        };
        let Value::Object(fields) = record else {
            return broken(None, format!("unreadable audit line at position {n}"));
        };
        let sequence = fields.get("sequence").and_then(Value::as_u64);
        let (Some(Value::String(prev_hash)), Some(Value::String(stated))) =
            (fields.get("prevHash"), fields.get("hash"))
        else {
            return broken(sequence, "record is not hash-chained".into());
        };
        if *prev_hash != prev {
            return broken(sequence, "prevHash does not match the preceding record (reorder or deletion)".into());
        }
        let mut content = fields.clone();
        content.remove("prevHash");
        content.remove("hash");
        if hash(prev_hash, &content) != *stated {
            return broken(sequence, "content hash mismatch (record was altered)".into());
        }
        prev = stated.clone();
    }
    Verification {
        valid: true,
        records_checked: position + records.len(),
        first_broken_sequence: None,
        detail: "ok".into(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn trail(n: u64) -> Vec<Value> {
        let mut prev = GENESIS.to_owned();
        (1..=n)
            .map(|sequence| {
                let content =
                    json!({ "source": "client", "mutations": { "$.b": sequence, "$.a": [1, { "z": 1, "y": 2 }] } });
                let Value::Object(content) = content else { unreachable!() };
                let sealed = seal(content, sequence, &prev);
                prev = sealed["hash"].as_str().unwrap().to_owned();
                Value::Object(sealed)
            })
            .collect()
    }

    #[test]
    fn an_intact_trail_verifies() {
        assert_eq!(
            verify(&trail(3), GENESIS),
            Verification { valid: true, records_checked: 3, first_broken_sequence: None, detail: "ok".into() }
        );
        assert!(verify(&[], GENESIS).valid);
    }

    #[test]
    fn the_hash_is_of_the_sorted_compact_record() {
        let record = &trail(1)[0];
        let canonical = r#"{"mutations":{"$.a":[1,{"y":2,"z":1}],"$.b":1},"sequence":1,"source":"client"}"#;
        let expected = Sha256::digest(format!("{GENESIS}\n{canonical}"));
        let expected: String = expected.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(record["hash"], expected.as_str());
    }

    #[test]
    fn the_first_broken_record_is_named() {
        let mut altered = trail(3);
        altered[1]["mutations"]["$.b"] = json!(99);
        let v = verify(&altered, GENESIS);
        assert_eq!((v.valid, v.records_checked, v.first_broken_sequence), (false, 2, Some(2)));
        assert_eq!(v.detail, "content hash mismatch (record was altered)");

        let mut deleted = trail(3);
        deleted.remove(1);
        let v = verify(&deleted, GENESIS);
        assert_eq!((v.records_checked, v.first_broken_sequence), (2, Some(3)));
        assert_eq!(v.detail, "prevHash does not match the preceding record (reorder or deletion)");

        let mut unchained = trail(2);
        unchained[0].as_object_mut().unwrap().remove("hash");
        assert_eq!(verify(&unchained, GENESIS).detail, "record is not hash-chained");

        let mut unreadable = trail(2);
        unreadable[1] = json!("{not json");
        let v = verify(&unreadable, GENESIS);
        assert_eq!((v.records_checked, v.first_broken_sequence), (2, None));
        assert_eq!(v.detail, "unreadable audit line at position 1");
    }
}
