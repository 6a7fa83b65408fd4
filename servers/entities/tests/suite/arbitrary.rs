//! The definition loader against arbitrary input: random bytes and random YAML made of the
//! definition format's own keys and YAML's indicators, as definitions and as record files. No
//! input may panic (a panic while reading shows as "reading the repository failed") or hang;
//! every call gives a result or one of the documented error codes. The generator (shared by
//! every fuzz target) has a fixed seed, so a failure is reproduced by running the test again. Inputs known to be hostile (one
//! held the repository for 41 s) are kept in `hostile`, and so is any input this test finds.

use serde_json::{Value, json};

use crate::common::{TempRepo, call, without_hanging};
use crate::fuzz;

/// How many random repositories are tried, and from which seed.
const CASES: usize = 200;
const SEED: u64 = 0x005e_ed0f_e471_7135;

/// YAML-looking text: the format's keys and values, YAML's indicators, odd characters.
fn yaml(random: &mut fuzz::Rng) -> String {
    const PIECES: &[&str] = &[
        "Name",
        "Description",
        "Extends",
        "Identifier",
        "Field",
        "Generated",
        "Pattern",
        "Fields",
        "Type",
        "Required",
        "Repeated",
        "Unique",
        "Enum",
        "Format",
        "Default",
        "ReferenceTypes",
        "Properties",
        "Include",
        "Path",
        "Selector",
        "InlineData",
        "Write",
        "Template",
        "JSONSchema",
        "id",
        "X",
        "$path",
        "string",
        "object",
        "reference",
        "any",
        "integer",
        "true",
        "1",
        "-1",
        "1e400",
        "~",
        "null",
        "'$[*]'",
        "'$..*'",
        "'$['",
        "data/*.yaml",
        "data/**",
        "../x/*",
        "/etc/*",
        "{a,b}",
        "'['",
        "\"\\u0000\"",
        "&a ",
        "*a",
        "!!binary ",
        "!x ",
        "|",
        ">-",
        "? ",
        "- ",
        ": ",
        "[",
        "]",
        "{",
        "}",
        ", ",
        "\n",
        "\n  ",
        "\n    ",
        "  ",
        "\t",
        "# c",
        "---\n",
        "...\n",
        "%YAML 1.2\n",
        "\u{feff}",
        "é",
        "'",
        "\"",
        "<<: *a",
        "^[a-z]+$",
        "(?",
        "email",
        "date",
        "{id}.yaml",
        "yaml",
        "json",
    ];
    (0..1 + random.usize(..60)).map(|_| fuzz::pick(random, PIECES)).collect()
}

/// The definition and record file of one case.
fn case(random: &mut fuzz::Rng) -> (Vec<u8>, Vec<u8>) {
    let definition = match random.u8(..3) {
        0 => fuzz::bytes(random, 300),
        1 => yaml(random).into_bytes(),
        _ => format!("Include:\n  - data/*.yaml\n  - Path: data/*.json\n    Selector: '$[*]'\n{}", yaml(random))
            .into_bytes(),
    };
    let record = if random.bool() { fuzz::bytes(random, 300) } else { yaml(random).into_bytes() };
    (definition, record)
}

const ERROR_CODES: [&str; 5] =
    ["unknown_entity", "entity_not_allowed", "object_not_found", "repository_error", "Invalid arguments"];

/// Every tool against a repository holding `definition` (as X, and a child Y extending it) and
/// `record` (as a YAML and a JSON file).
fn every_tool_answers(definition: &[u8], record: &[u8]) {
    let repo = TempRepo::new();
    repo.write("entities/X.yaml", definition)
        .write("entities/Y.yaml", [b"Extends: X\n".as_slice(), definition].concat())
        .write("data/a.yaml", record)
        .write("data/b.json", record);
    let root = repo.dir.path().to_owned();
    let answers = without_hanging(move || {
        let s = crate::common::server_at(&root, None);
        [
            ("entity_list", json!({})),
            ("entity_show", json!({ "entity": "X" })),
            ("entity_show", json!({ "entity": "Y" })),
            ("object_list", json!({ "entity": "X" })),
            ("object_get", json!({ "entity": "Y", "id": "id" })),
            ("repository_export", json!({})),
            ("files_list", json!({})),
        ]
        .map(|(tool, args)| (tool, call(&s, tool, args)))
    });
    for (tool, answer) in answers {
        let Err(body) = answer else { continue };
        let code = body["error"].as_str().unwrap_or_default();
        assert!(ERROR_CODES.contains(&code), "{tool}: {body}");
        let reason = body["reason"].as_str().unwrap_or_default();
        assert!(!reason.contains("reading the repository failed"), "{tool} panicked: {body}");
        assert_ne!(body["message"], Value::Null, "{tool}: {body}");
    }
}

#[test]
fn arbitrary_definitions_and_records_never_panic_or_hang() {
    let (mut random, seed, cases) = fuzz::run(SEED, CASES);
    for number in 0..cases {
        let (definition, record) = case(&mut random);
        let answered = std::panic::catch_unwind(|| every_tool_answers(&definition, &record));
        assert!(answered.is_ok(), "case {number} (seed {seed:#x}) failed on {definition:?} with record {record:?}");
    }
}

/// Inputs known to be hostile, each (definition, record file).
fn hostile() -> Vec<(String, String)> {
    let valid = "Include:\n  - Path: data/*.yaml\n    Selector: '$..*'\n".to_owned();
    let mut bomb = String::from("InlineData:\n  - &a [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..=10 {
        bomb.push_str(&format!(
            "  - &a{level} [{}]\n",
            vec![if level == 1 { "*a".to_owned() } else { format!("*a{}", level - 1) }; 10].join(", ")
        ));
    }
    vec![
        ("[".repeat(200_000), String::new()),
        (valid.clone(), "[".repeat(200_000)),
        ("{a: ".repeat(50_000), String::new()),
        (valid.clone(), format!("{}1{}", "{a: ".repeat(60), "}".repeat(60))),
        (valid, "- ".repeat(100_000)),
        (bomb, String::new()),
        ("\u{feff}Include: ['**']\n".to_owned(), "\0".to_owned()),
    ]
}

#[test]
fn hostile_inputs_are_answered() {
    for (definition, record) in hostile() {
        every_tool_answers(definition.as_bytes(), record.as_bytes());
    }
}
