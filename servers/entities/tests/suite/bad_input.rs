//! Hostile or broken repositories: each gives a clear `repository_error`, nothing outside the
//! root is read, nothing crashes or hangs.

use crate::common::{TempRepo, call, diagnostics, ids, server_at, server_with, simple_definition, without_hanging};
use serde_json::{Value, json};

fn repository_error(repo: &TempRepo, tool: &str, args: Value) -> Value {
    let body = call(&repo.server(), tool, args).unwrap_err();
    assert_eq!(body["error"], "repository_error", "{body}");
    body
}

fn reason(body: &Value) -> &str {
    body["reason"].as_str().unwrap()
}

#[test]
fn includes_that_escape_the_root_are_refused() {
    let repo = TempRepo::new();
    for pattern in ["../../etc/passwd", "/etc/passwd", "data/../../../etc/*", "../*"] {
        repo.write("entities/Leak.yaml", format!("Fields:\n  id: {{}}\nInclude:\n  - {pattern:?}\n"));
        let body = repository_error(&repo, "files_list", json!({ "entity": "Leak" }));
        assert_eq!(body["file"], "entities/Leak.yaml", "{pattern}");
        assert!(reason(&body).contains(pattern), "{pattern}: {body}");
    }
    repo.write("entities/Leak.yaml", "JSONSchema: ../../etc/passwd\n");
    let body = repository_error(&repo, "object_list", json!({ "entity": "Leak" }));
    assert!(reason(&body).contains("leaves the workspace root"), "{body}");
}

#[test]
fn symlinks_pointing_outside_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.yaml"), "id: secret\n").unwrap();
    let repo = TempRepo::new();
    repo.write("entities/User.yaml", simple_definition("users")).write("data/users/a.yaml", "id: a\n");
    std::os::unix::fs::symlink(outside.path().join("secret.yaml"), repo.dir.path().join("data/users/evil.yaml"))
        .unwrap();
    let body = repository_error(&repo, "object_list", json!({ "entity": "User" }));
    assert_eq!(body["file"], "data/users/evil.yaml");
    assert!(reason(&body).contains("outside the workspace root"), "{body}");
    // A symlinked folder as the include's base, and a symlinked definition.
    std::fs::remove_file(repo.dir.path().join("data/users/evil.yaml")).unwrap();
    std::os::unix::fs::symlink(outside.path(), repo.dir.path().join("data/linked")).unwrap();
    repo.write("entities/Post.yaml", simple_definition("linked"));
    let body = repository_error(&repo, "files_list", json!({ "entity": "Post" }));
    assert!(reason(&body).contains("outside the workspace root"), "{body}");
    std::os::unix::fs::symlink(outside.path().join("secret.yaml"), repo.dir.path().join("entities/Secret.yaml"))
        .unwrap();
    let body = repository_error(&repo, "entity_show", json!({ "entity": "Secret" }));
    assert_eq!(body["file"], "entities/Secret.yaml");
    // A symlink that stays inside is followed.
    std::os::unix::fs::symlink(repo.dir.path().join("data/users/a.yaml"), repo.dir.path().join("data/users/b.yaml"))
        .unwrap();
    let body = repository_error(&repo, "object_list", json!({ "entity": "User" }));
    assert!(reason(&body).contains("declared twice"), "the same record, read through the link: {body}");
}

#[test]
fn a_50_mb_file_is_refused_without_reading_it_whole() {
    let repo = TempRepo::new();
    repo.write("entities/User.yaml", simple_definition("users"));
    let mut big = String::from("id: big\nname: |\n");
    let line = format!("  {}\n", "x".repeat(98));
    while big.len() < 50 * 1024 * 1024 {
        big.push_str(&line);
    }
    repo.write("data/users/big.yaml", &big);
    let body = repository_error(&repo, "object_list", json!({ "entity": "User" }));
    assert_eq!(body["file"], "data/users/big.yaml");
    assert!(reason(&body).contains("larger than the limit"), "{body}");
}

#[test]
fn invalid_utf8_is_refused() {
    let repo = TempRepo::new();
    repo.write("entities/User.yaml", simple_definition("users")).write("data/users/a.yaml", b"id: a\nname: \xff\xfe\n");
    let body = repository_error(&repo, "object_list", json!({ "entity": "User" }));
    assert_eq!(body["file"], "data/users/a.yaml");
    assert_eq!(reason(&body), "the file is not UTF-8 text (invalid byte at offset 12)");
    repo.write("entities/User.yaml", b"Description: \xc3\x28\n");
    let body = repository_error(&repo, "entity_show", json!({ "entity": "User" }));
    assert!(reason(&body).contains("not UTF-8"), "{body}");
}

#[test]
fn the_same_id_in_two_files_is_a_deterministic_error() {
    let repo = TempRepo::new();
    repo.write("entities/User.yaml", simple_definition("users"))
        .write("data/users/b.yaml", "id: same\n")
        .write("data/users/a.yaml", "id: same\n")
        .write("data/users/c.yaml", "id: other\n");
    let expected = "the identifier \"same\" is declared twice: in data/users/a.yaml and in data/users/b.yaml";
    for _ in 0..3 {
        let body = repository_error(&repo, "object_get", json!({ "entity": "User", "id": "other" }));
        assert_eq!(reason(&body), expected);
        assert_eq!(body["file"], "data/users/b.yaml");
    }
    repo.remove("data/users/b.yaml");
    repo.write("entities/User.yaml", simple_definition("users") + "InlineData:\n  - id: same\n");
    let body = repository_error(&repo, "object_list", json!({ "entity": "User" }));
    assert!(reason(&body).contains("in data/users/a.yaml and in entities/User.yaml (InlineData[0])"), "{body}");
}

#[test]
fn cyclic_extends_is_an_error_for_the_cycle_only() {
    let repo = TempRepo::new();
    repo.write("entities/A.yaml", "Extends: B\n")
        .write("entities/B.yaml", "Extends: C\n")
        .write("entities/C.yaml", "Extends: A\n")
        .write("entities/D.yaml", "Extends: A\n")
        .write("entities/E.yaml", "Extends: Ghost\n")
        .write("entities/Fine.yaml", "InlineData:\n  - id: ok\n");
    let s = repo.server();
    let body = call(&s, "entity_show", json!({ "entity": "A" })).unwrap_err();
    assert_eq!(body["file"], "entities/A.yaml");
    assert_eq!(reason(&body), "`Extends` forms a cycle: A → B → C → A");
    let body = call(&s, "object_list", json!({ "entity": "D" })).unwrap_err();
    assert_eq!(reason(&body), "`Extends` forms a cycle: D → A → B → C → A");
    let body = call(&s, "entity_show", json!({ "entity": "E" })).unwrap_err();
    assert!(reason(&body).contains("\"Ghost\""), "{body}");
    assert_eq!(ids(&s, "Fine"), ["ok"]);
    assert_eq!(call(&s, "entity_list", json!({})).unwrap()["entities"], json!(["A", "B", "C", "D", "E", "Fine"]));
}

#[test]
fn a_yaml_bomb_is_refused() {
    let repo = TempRepo::new();
    repo.write("entities/User.yaml", simple_definition("users"));
    let mut bomb = String::from("id: boom\nname: x\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for level in 1..=12 {
        let refs = vec![format!("*l{}", level - 1); 10].join(", ");
        bomb.push_str(&format!("l{level}: &l{level} [{refs}]\n"));
    }
    repo.write("data/users/bomb.yaml", &bomb);
    let body = repository_error(&repo, "object_list", json!({ "entity": "User" }));
    assert_eq!(body["file"], "data/users/bomb.yaml");
    assert!(reason(&body).contains("repetition limit exceeded"), "{body}");
    // The same bomb in a definition.
    repo.write("entities/Bomb.yaml", format!("InlineData:\n  - {}", bomb.replace('\n', "\n    ")));
    let body = repository_error(&repo, "entity_show", json!({ "entity": "Bomb" }));
    assert!(reason(&body).contains("repetition limit exceeded"), "{body}");
}

#[test]
fn unreadable_documents_are_clear_errors() {
    let repo = TempRepo::new();
    repo.write("entities/User.yaml", "Fields:\n  id: {}\nInclude:\n  - data/*\n");
    for (file, contents, expected) in [
        ("data/a.txt", "id: a\n", "neither YAML"),
        ("data/a.yaml", "- id: a\n", "holds a list"),
        ("data/a.yaml", "just text\n", "holds a string"),
        ("data/a.yaml", "", "holds nothing"),
        ("data/a.json", "{\"id\": ", "invalid JSON"),
        ("data/a.yaml", "? [1, 2]\n: x\n", "invalid YAML"),
    ] {
        let _ = std::fs::remove_dir_all(repo.dir.path().join("data"));
        repo.write(file, contents);
        let body = repository_error(&repo, "object_list", json!({ "entity": "User" }));
        assert_eq!(body["file"], file);
        assert!(reason(&body).contains(expected), "{file} {contents:?}: {body}");
    }
}

const PIPE: &str = "skipped: it is a named pipe, not a regular file, and is not read";

#[test]
fn named_pipes_are_skipped_never_opened() {
    let repo = TempRepo::new();
    repo.write("entities/User.yaml", simple_definition("users")).write("data/users/a.yaml", "id: a\n");
    repo.fifo("data/users/x.yaml").fifo("entities/Pipe.yaml");
    let root = repo.dir.path().to_owned();
    let (ids, files, entities, diagnostics) = without_hanging(move || {
        let s = server_at(&root, None);
        let files = call(&s, "files_list", json!({})).unwrap();
        (ids(&s, "User"), files, call(&s, "entity_list", json!({})).unwrap(), diagnostics(&s))
    });
    assert_eq!(ids, ["a"]);
    assert_eq!(files, json!({ "files": [{ "type": "User", "file": "data/users/a.yaml" }] }));
    assert_eq!(entities, json!({ "entities": ["User"] }));
    assert_eq!(diagnostics, [format!("entities/Pipe.yaml: {PIPE}"), format!("data/users/x.yaml: {PIPE}")]);
}

#[test]
fn named_pipes_where_a_file_is_named_are_errors_not_hangs() {
    let repo = TempRepo::new();
    repo.write("entities/Item.yaml", "JSONSchema: schemas/item.json\n").fifo("schemas/item.json");
    let root = repo.dir.path().to_owned();
    let body = without_hanging(move || call(&server_at(&root, None), "object_list", json!({ "entity": "Item" })));
    let body = body.unwrap_err();
    assert_eq!(
        (&body["file"], reason(&body)),
        (&json!("schemas/item.json"), "it is a named pipe, not a regular file, and is not read")
    );
    repo.fifo("repository.yaml");
    let root = repo.dir.path().to_owned();
    let body = without_hanging(move || call(&server_at(&root, None), "entity_list", json!({}))).unwrap_err();
    assert_eq!(reason(&body), "repository.yaml: it is a named pipe, not a regular file, and is not read");
}

#[test]
fn deeply_nested_documents_are_refused_before_they_are_parsed() {
    let repo = TempRepo::new();
    repo.write("entities/User.yaml", simple_definition("users")).write("data/users/deep.yaml", "[".repeat(200_000));
    let body = repository_error(&repo, "object_list", json!({ "entity": "User" }));
    assert_eq!(body["file"], "data/users/deep.yaml");
    assert_eq!(reason(&body), "the document nests deeper than the limit of 64 levels (at line 1, column 65)");
    repo.write("entities/Deep.yaml", format!("InlineData:\n  - {}", "{a: ".repeat(100_000)));
    let body = repository_error(&repo, "entity_show", json!({ "entity": "Deep" }));
    assert_eq!(body["file"], "entities/Deep.yaml");
    assert!(reason(&body).starts_with("the document nests deeper than the limit of 64 levels"), "{body}");
    repo.write("entities/Thing.yaml", "Include:\n  - things/*.json\n")
        .write("things/a.json", format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)));
    let body = repository_error(&repo, "object_list", json!({ "entity": "Thing" }));
    assert_eq!(
        (&body["file"], reason(&body)),
        (&json!("things/a.json"), "the document nests deeper than the limit of 64 levels")
    );
}

#[test]
fn the_depth_limit_is_a_setting() {
    let repo = TempRepo::new();
    repo.write("entities/Thing.yaml", "Include:\n  - things/*.yaml\n").write("things/a.yaml", "id: a\nx: [[1]]\n");
    let shallow = server_with(repo.dir.path(), |o| o.max_depth = 2);
    let body = call(&shallow, "object_list", json!({ "entity": "Thing" })).unwrap_err();
    assert_eq!(reason(&body), "the document nests deeper than the limit of 2 levels (at line 2, column 5)");
    assert_eq!(ids(&server_with(repo.dir.path(), |o| o.max_depth = 3), "Thing"), ["a"]);
}

#[test]
fn the_file_size_limit_is_a_setting() {
    let repo = TempRepo::new();
    repo.write("entities/User.yaml", simple_definition("users"))
        .write("data/users/a.yaml", format!("id: a\nname: {}\n", "x".repeat(200)));
    let small = server_with(repo.dir.path(), |o| o.max_file_bytes = 100);
    let body = call(&small, "object_list", json!({ "entity": "User" })).unwrap_err();
    assert_eq!(reason(&body), "the file is larger than the limit of 100 bytes (--max-file-bytes)");
    assert_eq!(ids(&repo.server(), "User"), ["a"]);
}

#[test]
fn external_roots_go_up_once_then_only_down() {
    let outer = tempfile::tempdir().unwrap();
    let workspace = outer.path().join("ws");
    let repo_dir = workspace.join("repo");
    std::fs::create_dir_all(repo_dir.join("entities")).unwrap();
    std::fs::create_dir_all(workspace.join("common")).unwrap();
    std::fs::create_dir_all(outer.path().join("secret")).unwrap();
    std::fs::write(outer.path().join("secret/s.yaml"), "id: secret\n").unwrap();
    std::os::unix::fs::symlink(outer.path().join("secret"), workspace.join("link")).unwrap();
    std::os::unix::fs::symlink(&workspace, workspace.join("common/up")).unwrap();
    std::fs::write(repo_dir.join("entities/Tag.yaml"), "Include:\n  - ../link/*.yaml\n").unwrap();
    for (entry, why) in [
        ("../../secret", "no further .."),
        ("../../../../etc", "no further .."),
        ("/etc", "must be ../"),
        ("../common/../../secret", "no further .."),
        ("..", "must be ../"),
        ("../", "must be ../"),
        ("../*", "no glob characters"),
        ("../common/./x", "folder names only"),
        ("../link", "resolves (through a symlink)"),
        ("../common/up", "which is not inside"),
    ] {
        std::fs::write(repo_dir.join("repository.yaml"), format!("ExternalRoots:\n  - {entry:?}\n")).unwrap();
        let body = call(&server_at(&repo_dir, None), "entity_list", json!({})).unwrap_err();
        assert_eq!(body["error"], "repository_error", "{entry}");
        let reason = reason(&body);
        assert!(reason.starts_with(&format!("repository.yaml: the external root {entry:?}")), "{entry}: {body}");
        assert!(reason.contains(why), "{entry}: {body}");
    }
}

#[test]
fn a_json_schema_reference_is_never_fetched() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.json");
    std::fs::write(&secret, r#"{"type": "object"}"#).unwrap();
    let repo = TempRepo::new();
    for reference in [format!("file://{}", secret.display()), "http://127.0.0.1:9/schema.json".to_owned()] {
        repo.write("entities/Item.yaml", "JSONSchema: schemas/item.json\nInclude:\n  - items/*.json\n")
            .write("schemas/item.json", json!({ "$ref": reference }).to_string())
            .write("items/a.json", r#"{"id": "a"}"#);
        let body = repository_error(&repo, "object_list", json!({ "entity": "Item" }));
        assert_eq!(body["file"], "entities/Item.yaml", "{reference}");
        assert!(reason(&body).contains("not a valid JSON Schema"), "{reference}: {body}");
    }
}
