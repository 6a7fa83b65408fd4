//! The official JSONata test suite (`groups/<group>/*.json`, `datasets/*.json`) run through the
//! `eval_expression` tool of a live `valem mcp` process.
//!
//! A case's `dataset` is read here, by name, and sent inline as `data`: the tool never reads
//! files. A case with neither `data` nor a dataset sends no `data` (JSONata's undefined input).
//! `timelimit` and `depth` are not sent: the tool holds every evaluation to its own limits.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;

use serde_json::{Map, Number, Value, json};

use super::mcp_client::Client;

/// The suite's folder in the repository.
pub const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/jsonata-suite");

/// One test case.
pub struct Case {
    pub group: String,
    /// The case file's stem, with `[n]` for the n-th case of a file that holds a list.
    pub name: String,
    pub expr: String,
    /// `None`: JSONata's undefined input.
    pub input: Option<Value>,
    pub bindings: Map<String, Value>,
    pub expect: Expect,
    /// The time limit the case sets itself, in ms: such a case is heavy (ranges of ten million).
    pub timelimit: Option<u64>,
}

pub enum Expect {
    /// The case file could not be read; the case fails with this reason.
    Unreadable(String),
    Value(Value),
    /// An array whose order does not matter.
    Unordered(Value),
    Undefined,
    /// Any evaluation or compile error passes; the code is shown when a case fails.
    Error(String),
}

/// Every case of the suite at `dir`, groups and files in name order.
pub fn load(dir: &Path) -> Result<Vec<Case>, String> {
    let datasets = dir.join("datasets");
    let mut cases = Vec::new();
    for group in sorted_entries(&dir.join("groups"))? {
        let group_name = file_name(&group);
        for file in sorted_entries(&group)?.into_iter().filter(|f| f.extension().is_some_and(|e| e == "json")) {
            let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let raw = match read_json(&file) {
                Ok(raw) => raw,
                // serde_json refuses a lone UTF-16 surrogate (`"\uD800"`), so such a case cannot
                // be sent; it is counted, as a failure.
                Err(why) => {
                    cases.push(Case::unreadable(&group_name, &stem, why));
                    continue;
                }
            };
            let listed = match raw {
                Value::Array(items) => {
                    items.into_iter().enumerate().map(|(i, c)| (format!("{stem}[{i}]"), c)).collect()
                }
                one => vec![(stem, one)],
            };
            for (name, raw) in listed {
                let case = parse_case(&raw, &group, &datasets).map_err(|why| format!("{group_name}/{name}: {why}"))?;
                cases.push(Case { group: group_name.clone(), name, ..case });
            }
        }
    }
    Ok(cases)
}

impl Case {
    fn unreadable(group: &str, name: &str, why: String) -> Case {
        Case {
            group: group.to_owned(),
            name: name.to_owned(),
            expr: String::new(),
            input: None,
            bindings: Map::new(),
            expect: Expect::Unreadable(why),
            timelimit: None,
        }
    }
}

fn parse_case(raw: &Value, group: &Path, datasets: &Path) -> Result<Case, String> {
    let expr = match (raw.get("expr"), raw.get("expr-file")) {
        (Some(Value::String(e)), _) => e.clone(),
        (_, Some(Value::String(f))) => fs::read_to_string(group.join(f)).map_err(|e| format!("{f}: {e}"))?,
        _ => return Err("no `expr` nor `expr-file`".into()),
    };
    let input = match (raw.get("data"), raw.get("dataset")) {
        (Some(data), _) => Some(data.clone()),
        (None, Some(Value::String(name))) => Some(read_json(&datasets.join(format!("{name}.json")))?),
        _ => None,
    };
    let bindings = raw.get("bindings").and_then(Value::as_object).cloned().unwrap_or_default();
    let code = raw.get("code").or_else(|| raw.get("error").and_then(|e| e.get("code")));
    let expect = match (code, raw.get("undefinedResult"), raw.get("result")) {
        (Some(code), _, _) => Expect::Error(code.as_str().unwrap_or_default().to_owned()),
        (_, Some(Value::Bool(true)), _) => Expect::Undefined,
        (_, _, Some(v)) if raw.get("unordered") == Some(&Value::Bool(true)) => Expect::Unordered(v.clone()),
        (_, _, Some(v)) => Expect::Value(v.clone()),
        _ => return Err("no `result`, `undefinedResult` nor `code`".into()),
    };
    let timelimit = raw.get("timelimit").and_then(Value::as_u64);
    Ok(Case { group: String::new(), name: String::new(), expr, input, bindings, expect, timelimit })
}

fn sorted_entries(dir: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    Ok(paths)
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs one case through `eval_expression`; `Err` holds why it failed.
pub fn run(client: &mut Client, case: &Case) -> io::Result<Result<(), String>> {
    if let Expect::Unreadable(why) = &case.expect {
        return Ok(Err(why.clone()));
    }
    let mut args = json!({ "expr": case.expr, "bindings": case.bindings });
    match &case.input {
        Some(input) => args["data"] = input.clone(),
        None => args["undefinedInput"] = json!(true),
    }
    let answer = client.call("eval_expression", args)?;
    if answer.is_error {
        return Ok(Err(format!("tool error: {}", answer.body)));
    }
    let body = &answer.body;
    let ok = body["ok"] == json!(true);
    let undefined = body["undefined"] == json!(true);
    Ok(match &case.expect {
        Expect::Error(_) if !ok => Ok(()),
        Expect::Undefined if ok && undefined => Ok(()),
        Expect::Value(v) if ok && !undefined && same(v, &body["result"]) => Ok(()),
        Expect::Unordered(v) if ok && !undefined && same_unordered(v, &body["result"]) => Ok(()),
        expected => Err(format!("expected {}, got {body}", describe(expected))),
    })
}

fn describe(expect: &Expect) -> String {
    match expect {
        Expect::Value(v) | Expect::Unordered(v) => v.to_string(),
        Expect::Undefined => "undefined".into(),
        Expect::Error(code) => format!("error {code}"),
        Expect::Unreadable(why) => why.clone(),
    }
}

/// Deep equality with numbers compared as JSONata prints them; object key order is free.
fn same(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Number(e), Value::Number(a)) => e.as_f64().map(js_number) == Some(printed(a)),
        (Value::Array(e), Value::Array(a)) => e.len() == a.len() && e.iter().zip(a).all(|(e, a)| same(e, a)),
        (Value::Object(e), Value::Object(a)) => {
            e.len() == a.len() && e.iter().all(|(k, e)| a.get(k).is_some_and(|a| same(e, a)))
        }
        (e, a) => e == a,
    }
}

fn same_unordered(expected: &Value, actual: &Value) -> bool {
    let (Value::Array(e), Value::Array(a)) = (expected, actual) else { return same(expected, actual) };
    let mut left: Vec<&Value> = a.iter().collect();
    e.len() == a.len()
        && e.iter().all(|e| match left.iter().position(|a| same(e, a)) {
            Some(i) => {
                left.swap_remove(i);
                true
            }
            None => false,
        })
}

/// How the server printed a number: an integral value sent as a float (`30.0`) is kept apart,
/// since JavaScript would print `30`.
fn printed(n: &Number) -> String {
    match n.as_f64() {
        Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0 => format!("{f:.1}"),
        Some(f) => js_number(f),
        None => n.to_string(),
    }
}

/// A number as JavaScript's `Number.prototype.toString` prints it.
pub fn js_number(f: f64) -> String {
    if f == 0.0 {
        return "0".into();
    }
    if !f.is_finite() {
        return f.to_string();
    }
    // `{:e}` gives the shortest digits that read back as `f`: `d.ddde±x`.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i32;
    let n = exp.parse::<i32>().unwrap_or(0) + 1;
    let sign = if f < 0.0 { "-" } else { "" };
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let e = if e < 0 { format!("-{}", -e) } else { format!("+{e}") };
        match digits.split_at(1) {
            (d, "") => format!("{d}e{e}"),
            (d, rest) => format!("{d}.{rest}e{e}"),
        }
    };
    format!("{sign}{body}")
}

/// Pass and fail counts per group.
#[derive(Default)]
pub struct Tally {
    groups: BTreeMap<String, (usize, usize)>,
}

impl Tally {
    pub fn add(&mut self, group: &str, passed: bool) {
        let entry = self.groups.entry(group.to_owned()).or_default();
        if passed { entry.0 += 1 } else { entry.1 += 1 }
    }

    /// `(passed, failed)` over every group.
    pub fn totals(&self) -> (usize, usize) {
        self.groups.values().fold((0, 0), |(p, f), (gp, gf)| (p + gp, f + gf))
    }

    /// One line per group, then the total.
    pub fn report(&self) -> String {
        let mut out = String::new();
        for (group, (pass, fail)) in &self.groups {
            out.push_str(&format!("{group:<36} pass {pass:>4}  fail {fail:>3}\n"));
        }
        let (pass, fail) = self.totals();
        let percent = 100.0 * pass as f64 / (pass + fail).max(1) as f64;
        out.push_str(&format!("total: {pass} of {} cases pass ({percent:.2}%), {fail} fail\n", pass + fail));
        out
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_print_as_javascript_prints_them() {
        let cases = [
            (30.0, "30"),
            (4.5, "4.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (-1.5e300, "-1.5e+300"),
            (0.1 + 0.2, "0.30000000000000004"),
        ];
        for (f, text) in cases {
            assert_eq!(super::js_number(f), text);
        }
    }
}
