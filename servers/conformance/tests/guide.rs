//! Walks docs/guide/adding-a-tool.md on the built binary: the tool is in the table, a session
//! script is recorded into a transcript, the recording replays, and a docs page is generated
//! from it; and the page names every error kind with its REST status.

use std::path::Path;

use tooltable::ErrorKind;
use tooltable_golden::Golden;
use tooltable_golden::session::{Line, SessionFile};

const BIN: &str = env!("CARGO_BIN_EXE_conformance-server");

#[test]
fn the_guide_works_step_by_step() {
    let dir = std::env::temp_dir().join(format!("tooltable-guide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    // Step 2: the tool is in the table.
    let tools = std::process::Command::new(BIN).arg("tools").output().unwrap();
    let tools: serde_json::Value = serde_json::from_slice(&tools.stdout).unwrap();
    assert!(tools.as_array().unwrap().iter().any(|t| t["name"] == "add_numbers"));

    // Step 3: a script of `→` lines, recorded.
    let script = concat!(
        "# Adding numbers.\n",
        "→ {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}\n",
        "→ {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
        "→ {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"add_numbers\",\"arguments\":{\"a\":2,\"b\":40}}}\n",
    );
    std::fs::write(dir.join("adding.session"), script).unwrap();
    let golden = Golden::new(BIN, &dir);
    golden.record("adding");
    let recorded = std::fs::read_to_string(dir.join("adding.session")).unwrap();
    let recorded = SessionFile::parse(&recorded).unwrap_or_else(|e| panic!("{e}\n{recorded}"));
    assert_eq!(recorded.lines[0].1, Line::Text("# Adding numbers.".into()), "comments are kept");
    let call = &recorded.steps()[2];
    let answer = call.received.iter().map(|(_, v)| v).find(|v| v["id"] == 2).expect("the call's answer");
    assert_eq!(answer["result"]["structuredContent"], serde_json::json!({"sum": 42}), "{answer}");
    golden.check("adding");
    golden.check_listed(&["adding"]);

    // Step 4: a page generated from the descriptors and the session.
    let page = dir.join("page.md");
    std::fs::write(
        &page,
        "# Page\n<!-- generated:tools-reference -->\n<!-- end generated -->\n<!-- generated:capture session=adding -->\n<!-- end generated -->\n",
    )
    .unwrap();
    golden.regenerate_docs(&page);
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(text.contains("| `add_numbers` | `GET /add` | `a`, `b` | — |"), "{text}");
    assert!(text.contains("\"tool\": \"add_numbers\""), "{text}");
    golden.check_page(&page);
    std::fs::remove_dir_all(Path::new(&dir)).unwrap();
}

#[test]
fn the_guide_names_every_error_kind_with_its_rest_status() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide/adding-a-tool.md");
    let page = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // A sentence may wrap between a status and its kind.
    let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
    for kind in ErrorKind::ALL {
        let named = format!("{} `{kind:?}`", kind.http_status());
        assert!(page.contains(&named), "adding-a-tool.md does not say {named}");
    }
}
