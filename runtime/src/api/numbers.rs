//! Numbers as JavaScript prints them: a float with no fractional part is written as an integer
//! (`30`, not `30.0`), so what a client sees does not depend on whether Rust held an f64 or an i64.
//!
//! ```
//! use serde_json::json;
//! use tooltable::transport::numbers::{normalize, number};
//!
//! let mut value = json!({ "sum": 30.0, "mean": 2.5 });
//! normalize(&mut value);
//! assert_eq!(value.to_string(), r#"{"sum":30,"mean":2.5}"#);
//! assert_eq!(number(1e3).to_string(), "1000");
//! ```

use serde_json::{Number, Value};

/// The largest integer an f64 holds exactly.
const MAX_SAFE: f64 = 9_007_199_254_740_992.0;

/// A JSON number for `f`, integral when it has no fraction.
pub fn number(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() <= MAX_SAFE {
        // In range and integral, so the cast is exact; -0.0 becomes 0 as in JavaScript.
        Value::from(f as i64)
    } else {
        Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

/// Rewrites every integral float in `v` as an integer, in place.
pub fn normalize(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64() {
                *v = number(f);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize),
        Value::Object(map) => map.values_mut().for_each(normalize),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integral_floats_print_as_integers() {
        let mut v = json!({ "a": 30.0, "b": [1.5, -0.0, 2.0], "c": 1e300, "d": 7 });
        normalize(&mut v);
        assert_eq!(v.to_string(), r#"{"a":30,"b":[1.5,0,2],"c":1e+300,"d":7}"#);
        assert_eq!(number(0.1 + 0.2).to_string(), "0.30000000000000004");
    }
}
