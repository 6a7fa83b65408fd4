//! The six tools in process: parameters, every error code, the allow-list rules, sort orders.

use std::path::PathBuf;

use crate::common::{call, error_code, server_at};
use serde_json::json;
use tooltable::Server;

use entities::tools::service::Service;

fn example() -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "examples", "full"].iter().collect()
}

fn full() -> Server<Service> {
    server_at(&example(), None)
}

fn allowing(names: &[&str]) -> Server<Service> {
    server_at(&example(), Some(names))
}

#[test]
fn missing_and_wrong_parameters_are_refused() {
    let s = full();
    for (tool, args) in [
        ("entity_show", json!({})),
        ("entity_show", json!({ "entity": 7 })),
        ("object_list", json!({})),
        ("object_get", json!({ "entity": "User" })),
        ("object_get", json!({ "entity": "User", "id": ["user-alice"] })),
        ("repository_export", json!({ "entities": "Post" })),
        ("repository_export", json!({ "entities": [1] })),
        ("files_list", json!({ "entity": false })),
        ("entity_list", json!({ "entity": "User" })),
    ] {
        let body = call(&s, tool, args.clone()).expect_err(&format!("{tool} {args} is refused"));
        assert_eq!(body["error"], "Invalid arguments", "{tool} {args}: {body}");
    }
}

#[test]
fn unknown_entities_are_unknown_entity() {
    let s = full();
    for (tool, args) in [
        ("entity_show", json!({ "entity": "Nope" })),
        ("entity_show", json!({ "entity": "user" })),
        ("object_list", json!({ "entity": "Nope" })),
        ("object_get", json!({ "entity": "Nope", "id": "x" })),
        ("repository_export", json!({ "entities": ["Post", "Nope"] })),
        ("files_list", json!({ "entity": "Nope" })),
    ] {
        let body = call(&s, tool, args.clone()).unwrap_err();
        assert_eq!(body["error"], "unknown_entity", "{tool} {args}");
        assert!(body["message"].as_str().unwrap().starts_with("there is no entity"), "{body}");
    }
}

#[test]
fn missing_records_are_object_not_found() {
    let body = call(&full(), "object_get", json!({ "entity": "User", "id": "user-carol" })).unwrap_err();
    assert_eq!(
        body,
        json!({
            "error": "object_not_found",
            "message": "User has no record with the id \"user-carol\"; object_list gives the ids there are",
            "entity": "User",
            "id": "user-carol",
        })
    );
    // Identifiers are looked up, never opened as paths.
    assert_eq!(
        error_code(&full(), "object_get", json!({ "entity": "User", "id": "../../etc/passwd" })),
        "object_not_found"
    );
    assert_eq!(
        error_code(&full(), "object_get", json!({ "entity": "User", "id": "data/users/alice.yaml" })),
        "object_not_found"
    );
}

#[test]
fn the_allow_list_hides_every_unlisted_entity() {
    let s = allowing(&["User", "Post"]);
    assert_eq!(call(&s, "entity_list", json!({})).unwrap(), json!({ "entities": ["Post", "User"] }));
    for (tool, args) in [
        ("entity_show", json!({ "entity": "Tag" })),
        ("object_list", json!({ "entity": "Tag" })),
        ("object_get", json!({ "entity": "Tag", "id": "tag-product" })),
        ("repository_export", json!({ "entities": ["Post", "Tag"] })),
        ("files_list", json!({ "entity": "Comment" })),
    ] {
        assert_eq!(error_code(&s, tool, args.clone()), "entity_not_allowed", "{tool} {args}");
    }
    // Unknown stays unknown whatever the list says.
    assert_eq!(error_code(&s, "entity_show", json!({ "entity": "Nope" })), "unknown_entity");
    assert_eq!(error_code(&allowing(&["Nope"]), "entity_show", json!({ "entity": "Nope" })), "unknown_entity");
}

#[test]
fn export_without_a_list_exports_only_allowed_entities() {
    let s = allowing(&["Tag", "User"]);
    for args in [json!({}), json!({ "entities": [] })] {
        let export = call(&s, "repository_export", args).unwrap();
        let names: Vec<&String> = export["entities"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["Tag", "User"]);
    }
    let files = call(&s, "files_list", json!({ "entity": "" })).unwrap();
    let types: Vec<&str> = files["files"].as_array().unwrap().iter().map(|f| f["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["User", "User"], "Tag is inline: it has no file");
}

#[test]
fn lists_are_sorted() {
    let s = full();
    let export = call(&s, "repository_export", json!({ "entities": ["User", "Comment", "User"] })).unwrap();
    let names: Vec<&String> = export["entities"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["Comment", "User"]);
    let ids: Vec<&str> =
        export["entities"]["Comment"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["comment-001", "comment-002"]);
    let files = call(&s, "files_list", json!({})).unwrap();
    let pairs: Vec<(String, String)> = files["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["type"].as_str().unwrap().to_owned(), f["file"].as_str().unwrap().to_owned()))
        .collect();
    let mut sorted = pairs.clone();
    sorted.sort();
    assert_eq!(pairs, sorted);
    assert_eq!(pairs[0], ("Comment".to_owned(), "data/comments.yaml".to_owned()));
}

#[test]
fn results_keep_the_documented_key_order() {
    let s = full();
    let list = call(&s, "object_list", json!({ "entity": "User" })).unwrap();
    let keys: Vec<&String> = list["objects"][0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["type", "id", "file"]);
    let shown = call(&s, "entity_show", json!({ "entity": "User" })).unwrap();
    assert_eq!(shown["schema"].as_object().unwrap().keys().next().unwrap(), "Name");
    let export = call(&s, "repository_export", json!({ "entities": ["Post"] })).unwrap();
    let keys: Vec<&String> = export["entities"]["Post"][0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["id", "title", "author", "status", "tags", "body"], "a record keeps its file's order");
}

#[test]
fn inline_records_have_no_file_and_are_read_only() {
    let got = call(&full(), "object_get", json!({ "entity": "Tag", "id": "tag-release" })).unwrap();
    assert_eq!(
        got,
        json!({ "object": {
            "type": "Tag", "id": "tag-release",
            "fields": { "id": "tag-release", "label": "Release notes" },
            "inline": true, "readOnly": true,
        }})
    );
}

#[test]
fn selectors_pick_many_records_out_of_one_file() {
    let s = full();
    let got = call(&s, "object_get", json!({ "entity": "Comment", "id": "comment-002" })).unwrap();
    assert_eq!(got["object"]["fields"]["body"], "Thank you, Bob.");
    assert!(got["object"]["file"].as_str().unwrap().ends_with("/data/comments.yaml"));
}
