//! The repository's features through the tools: inheritance, identifiers, validation, external
//! roots, reload, and a broken file spoiling only its own entity.

use crate::common::{TempRepo, call, error_code, ids, server_at, simple_definition};
use serde_json::json;

fn inheritance_repo() -> TempRepo {
    let repo = TempRepo::new();
    repo.write(
        "entities/Content.yaml",
        "Description: Anything published\nFields:\n  id:\n    Required: true\n  title:\n    Required: true\n    Description: Headline\nInclude:\n  - data/content/*.yaml\n",
    )
    .write(
        "entities/Article.yaml",
        "Extends: Content\nFields:\n  title:\n    Required: true\n    Description: Article headline\n  words:\n    Type: integer\nInclude:\n  - data/articles/*.yaml\n",
    )
    .write("entities/Feature.yaml", "Extends: Article\nInclude:\n  - data/features/*.yaml\n")
    .write("data/content/c1.yaml", "id: c1\ntitle: Plain\n")
    .write("data/articles/a1.yaml", "id: a1\ntitle: Long read\nwords: 1200\n")
    .write("data/features/f1.yaml", "id: f1\ntitle: Cover story\nwords: 3000\n");
    repo
}

#[test]
fn extends_merges_fields_and_computes_ancestors_and_descendants() {
    let repo = inheritance_repo();
    let s = repo.server();
    let feature = call(&s, "entity_show", json!({ "entity": "Feature" })).unwrap()["schema"].clone();
    assert_eq!(feature["FieldOrder"], json!(["id", "title", "words"]));
    assert_eq!(
        feature["Fields"]["title"]["Description"], "Article headline",
        "a redefined field replaces the inherited one"
    );
    assert_eq!(feature["Ancestors"], json!(["Article", "Content"]));
    assert_eq!(feature["Descendants"], json!(null));
    assert_eq!(feature["Extends"], "Article");
    let content = call(&s, "entity_show", json!({ "entity": "Content" })).unwrap()["schema"].clone();
    assert_eq!(content["Descendants"], json!(["Article", "Feature"]));
    assert_eq!(content["Ancestors"], json!(null));
    // Records belong to exactly the entity that declares them.
    assert_eq!(ids(&s, "Content"), ["c1"]);
    assert_eq!(ids(&s, "Article"), ["a1"]);
    assert_eq!(error_code(&s, "object_get", json!({ "entity": "Content", "id": "a1" })), "object_not_found");
}

#[test]
fn allowing_a_parent_does_not_allow_descendants() {
    let repo = inheritance_repo();
    let s = repo.server_allowing(&["Content", "Feature"]);
    assert_eq!(call(&s, "entity_list", json!({})).unwrap(), json!({ "entities": ["Content", "Feature"] }));
    assert_eq!(error_code(&s, "object_list", json!({ "entity": "Article" })), "entity_not_allowed");
    assert_eq!(error_code(&s, "object_get", json!({ "entity": "Content", "id": "f1" })), "object_not_found");
    // Hidden relatives are not named; the visible ones are.
    let content = call(&s, "entity_show", json!({ "entity": "Content" })).unwrap()["schema"].clone();
    assert_eq!(content["Descendants"], json!(["Feature"]));
    let feature = call(&s, "entity_show", json!({ "entity": "Feature" })).unwrap()["schema"].clone();
    assert_eq!(feature["Ancestors"], json!(["Content"]));
    // Inherited fields are still part of the schema.
    assert_eq!(feature["FieldOrder"], json!(["id", "title", "words"]));
}

#[test]
fn path_identifiers_are_workspace_relative_and_derived() {
    let repo = TempRepo::new();
    repo.write(
        "entities/Page.yaml",
        "Identifier:\n  Field: $path\nFields:\n  title:\n    Required: true\nInclude:\n  - pages/**/*.yaml\n",
    )
    .write("pages/about.yaml", "title: About\n")
    .write("pages/docs/intro.yaml", "title: Intro\n");
    let s = repo.server();
    assert_eq!(ids(&s, "Page"), ["pages/about.yaml", "pages/docs/intro.yaml"]);
    let got = call(&s, "object_get", json!({ "entity": "Page", "id": "pages/docs/intro.yaml" })).unwrap();
    assert_eq!(got["object"]["fields"], json!({ "$path": "pages/docs/intro.yaml", "title": "Intro" }));
}

#[test]
fn generated_identifiers_come_from_the_file_name() {
    let repo = TempRepo::new();
    repo.write("entities/Note.yaml", "Identifier:\n  Field: slug\n  Generated: true\n  Pattern: '^[a-z-]+$'\nFields:\n  slug: {}\n  text: {}\nInclude:\n  - notes/*.yaml\n")
        .write("notes/first-note.yaml", "text: hello\n")
        .write("notes/named.yaml", "slug: explicit\ntext: hi\n");
    let s = repo.server();
    assert_eq!(ids(&s, "Note"), ["explicit", "first-note"]);
    let got = call(&s, "object_get", json!({ "entity": "Note", "id": "first-note" })).unwrap();
    assert_eq!(got["object"]["fields"], json!({ "slug": "first-note", "text": "hello" }));
    repo.write("notes/Bad_Name.yaml", "text: x\n");
    let body = call(&s, "object_list", json!({ "entity": "Note" })).unwrap_err();
    assert_eq!(body["error"], "repository_error");
    assert_eq!(body["file"], "notes/Bad_Name.yaml");
    assert!(body["reason"].as_str().unwrap().contains("`slug`"), "{body}");
}

#[test]
fn invalid_records_name_the_file_and_the_field() {
    let repo = TempRepo::new();
    repo.write(
        "entities/User.yaml",
        "Fields:\n  id:\n    Required: true\n  email:\n    Required: true\n    Format: email\n  age:\n    Type: integer\n  role:\n    Enum: [admin, author]\n  address:\n    Type: object\n    Properties:\n      city:\n        Required: true\n      zip:\n        Pattern: '^[0-9]{5}$'\nInclude:\n  - users/*.yaml\n",
    )
    .write("users/ok.yaml", "id: ok\nemail: ok@example.com\naddress:\n  city: Paris\n  zip: '75001'\n");
    let s = repo.server();
    assert_eq!(ids(&s, "User"), ["ok"]);
    let shown = call(&s, "entity_show", json!({ "entity": "User" })).unwrap()["schema"].clone();
    assert_eq!(shown["Fields"]["address"]["PropertyOrder"], json!(["city", "zip"]));
    assert_eq!(shown["Fields"]["address"]["Properties"]["zip"]["Name"], "zip");
    for (record, field) in [
        ("id: bad\n", "email"),
        ("id: bad\nemail: not-an-address\n", "email"),
        ("id: bad\nemail: a@b.co\nage: old\n", "age"),
        ("id: bad\nemail: a@b.co\nrole: king\n", "role"),
        ("id: bad\nemail: a@b.co\nnickname: x\n", "nickname"),
        ("id: bad\nemail: a@b.co\naddress:\n  zip: '12345'\n", "address.city"),
        ("id: bad\nemail: a@b.co\naddress:\n  city: X\n  zip: '1'\n", "address.zip"),
        ("id: 12\nemail: a@b.co\n", "id"),
    ] {
        repo.write("users/bad.yaml", record);
        let body = call(&s, "object_list", json!({ "entity": "User" })).unwrap_err();
        assert_eq!(body["error"], "repository_error");
        assert_eq!(body["file"], "users/bad.yaml", "{record}");
        assert!(body["reason"].as_str().unwrap().contains(&format!("`{field}`")), "{record}: {body}");
    }
}

#[test]
fn defaults_fill_absent_fields_and_unique_fields_differ() {
    let repo = TempRepo::new();
    repo.write(
        "entities/Post.yaml",
        "Fields:\n  id: {}\n  status:\n    Default: DRAFT\n  slug:\n    Unique: true\nInclude:\n  - posts/*.yaml\n",
    )
    .write("posts/a.yaml", "id: a\nslug: hello\n")
    .write("posts/b.yaml", "id: b\nslug: world\nstatus: PUBLISHED\n");
    let s = repo.server();
    let export = call(&s, "repository_export", json!({})).unwrap();
    assert_eq!(
        export["entities"]["Post"],
        json!([
            { "id": "a", "slug": "hello", "status": "DRAFT" },
            { "id": "b", "slug": "world", "status": "PUBLISHED" },
        ])
    );
    repo.write("posts/c.yaml", "id: c\nslug: hello\n");
    let body = call(&s, "repository_export", json!({})).unwrap_err();
    assert_eq!(body["file"], "posts/c.yaml");
    assert!(body["reason"].as_str().unwrap().contains("`slug` is unique"), "{body}");
}

#[test]
fn a_json_schema_file_also_applies() {
    let repo = TempRepo::new();
    repo.write("entities/Item.yaml", "JSONSchema: schemas/item.json\nInclude:\n  - items/*.json\n")
        .write(
            "schemas/item.json",
            r#"{"type":"object","required":["id","price"],"properties":{"price":{"type":"number","minimum":0}}}"#,
        )
        .write("items/a.json", r#"{"id":"a","price":3}"#);
    let s = repo.server();
    assert_eq!(
        call(&s, "entity_show", json!({ "entity": "Item" })).unwrap()["schema"]["JSONSchema"],
        "schemas/item.json"
    );
    assert_eq!(ids(&s, "Item"), ["a"]);
    repo.write("items/b.json", r#"{"id":"b","price":-1}"#);
    let body = call(&s, "object_list", json!({ "entity": "Item" })).unwrap_err();
    assert_eq!(body["file"], "items/b.json");
    assert!(body["reason"].as_str().unwrap().contains("`price`"), "{body}");
}

#[test]
fn selectors_pick_nested_records() {
    let repo = TempRepo::new();
    repo.write(
        "entities/City.yaml",
        "Fields:\n  id: {}\n  country: {}\nInclude:\n  - Path: geo/*.json\n    Selector: '$.countries[*].cities[*]'\n",
    )
    .write("geo/world.json", r#"{"countries":[{"cities":[{"id":"paris","country":"fr"}]},{"cities":[{"id":"rome","country":"it"},{"id":"milan","country":"it"}]}]}"#);
    let s = repo.server();
    assert_eq!(ids(&s, "City"), ["milan", "paris", "rome"]);
    repo.write("geo/broken.json", r#"{"countries":[{"cities":["nope"]}]}"#);
    let body = call(&s, "object_list", json!({ "entity": "City" })).unwrap_err();
    assert_eq!(body["file"], "geo/broken.json");
    assert!(body["reason"].as_str().unwrap().contains("$['countries'][0]['cities'][0]"), "{body}");
}

#[test]
fn external_roots_are_configured_and_read_only() {
    let outer = tempfile::tempdir().unwrap();
    let repo_dir = outer.path().join("repo");
    std::fs::create_dir_all(repo_dir.join("entities")).unwrap();
    std::fs::create_dir_all(outer.path().join("common/tags")).unwrap();
    std::fs::write(outer.path().join("common/tags/news.yaml"), "id: news\n").unwrap();
    std::fs::write(repo_dir.join("entities/Tag.yaml"), "Fields:\n  id: {}\nInclude:\n  - ../common/tags/*.yaml\n")
        .unwrap();
    // Not configured: the include leaves the root.
    let s = server_at(&repo_dir, None);
    let body = call(&s, "files_list", json!({})).unwrap_err();
    assert_eq!(body["error"], "repository_error");
    assert_eq!(body["file"], "entities/Tag.yaml");
    std::fs::write(repo_dir.join("repository.yaml"), "ExternalRoots:\n  - ../common\n").unwrap();
    let s = server_at(&repo_dir, None);
    assert_eq!(
        call(&s, "files_list", json!({})).unwrap(),
        json!({ "files": [{ "type": "Tag", "file": "../common/tags/news.yaml" }] })
    );
    let got = call(&s, "object_get", json!({ "entity": "Tag", "id": "news" })).unwrap();
    let file = outer.path().canonicalize().unwrap().join("common/tags/news.yaml");
    assert_eq!(got["object"]["file"], file.display().to_string());
    assert_eq!(got["object"]["readOnly"], true);
}

#[test]
fn edits_are_seen_on_the_next_call() {
    let repo = TempRepo::new();
    repo.write("entities/User.yaml", simple_definition("users")).write("data/users/a.yaml", "id: a\n");
    let s = repo.server();
    assert_eq!(ids(&s, "User"), ["a"]);
    repo.write("data/users/b.yaml", "id: b\n");
    assert_eq!(ids(&s, "User"), ["a", "b"]);
    repo.write("data/users/b.yaml", "id: b2\n");
    assert_eq!(ids(&s, "User"), ["a", "b2"]);
    repo.remove("data/users/a.yaml");
    assert_eq!(ids(&s, "User"), ["b2"]);
    repo.write("data/users/new/deep.yaml", "id: deep\n");
    assert_eq!(ids(&s, "User"), ["b2"], "the include does not reach into subfolders");
    repo.write("entities/Tag.yaml", "InlineData:\n  - id: t\n");
    assert_eq!(call(&s, "entity_list", json!({})).unwrap(), json!({ "entities": ["Tag", "User"] }));
    repo.write("entities/User.yaml", simple_definition("users").replace("users/*.yaml", "users/**/*.yaml"));
    assert_eq!(ids(&s, "User"), ["b2", "deep"]);
}

#[test]
fn a_broken_file_spoils_only_its_entity() {
    let repo = TempRepo::users_and_posts();
    let s = repo.server();
    repo.write("data/users/a.yaml", "id: [unclosed\n");
    let body = call(&s, "object_get", json!({ "entity": "User", "id": "a" })).unwrap_err();
    assert_eq!(body["error"], "repository_error");
    assert_eq!(body["file"], "data/users/a.yaml");
    assert!(body["reason"].as_str().unwrap().starts_with("invalid YAML"), "{body}");
    assert_eq!(error_code(&s, "repository_export", json!({})), "repository_error", "an export fails whole");
    assert_eq!(ids(&s, "Post"), ["p"]);
    assert!(call(&s, "entity_show", json!({ "entity": "User" })).is_ok(), "the definition itself is fine");
    assert!(call(&s, "files_list", json!({ "entity": "User" })).is_ok());
    // A broken definition (read by a server that never saw it whole): its entity is still
    // listed, and fails with the reason.
    repo.write("entities/User.yaml", "Fields: [oops\n");
    let s = repo.server();
    assert_eq!(call(&s, "entity_list", json!({})).unwrap(), json!({ "entities": ["Post", "User"] }));
    let body = call(&s, "entity_show", json!({ "entity": "User" })).unwrap_err();
    assert_eq!(body["file"], "entities/User.yaml");
    assert_eq!(ids(&s, "Post"), ["p"]);
    repo.write("entities/User.yaml", "Feilds: {}\n");
    let body = call(&s, "entity_show", json!({ "entity": "User" })).unwrap_err();
    assert!(body["reason"].as_str().unwrap().contains("unknown field `Feilds`"), "{body}");
}

#[test]
fn a_missing_definitions_folder_is_a_repository_error() {
    let dir = tempfile::tempdir().unwrap();
    let s = server_at(dir.path(), None);
    assert_eq!(error_code(&s, "entity_list", json!({})), "repository_error");
    std::fs::create_dir(dir.path().join("entities")).unwrap();
    assert_eq!(call(&s, "entity_list", json!({})).unwrap(), json!({ "entities": [] }));
}

#[test]
fn definition_settings_are_checked() {
    let repo = TempRepo::new();
    for (definition, reason) in [
        ("Fields:\n  a:\n    Type: text\n", "`Type` \"text\""),
        ("Fields:\n  a:\n    Type: reference\n", "needs `ReferenceTypes`"),
        ("Fields:\n  a:\n    Type: reference\n    ReferenceTypes: [Ghost]\n", "unknown entity \"Ghost\""),
        ("Fields:\n  a:\n    ReferenceTypes: [Thing]\n", "not \"reference\""),
        ("Write:\n  Format: xml\n", "`Write.Format`"),
        ("Name: Other\n", "`Name` is \"Other\""),
        ("Include:\n  - Path: a/*.yaml\n    Selector: 'not a path'\n", "not a JSON Path"),
        (
            "Identifier:\n  Field: $path\nInclude:\n  - Path: a/*.yaml\n    Selector: $[*]\n",
            "cannot be used with the `$path`",
        ),
    ] {
        repo.write("entities/Thing.yaml", definition);
        let body = call(&repo.server(), "entity_show", json!({ "entity": "Thing" })).unwrap_err();
        assert_eq!(body["file"], "entities/Thing.yaml");
        assert!(body["reason"].as_str().unwrap().contains(reason), "{definition}: {body}");
    }
}
