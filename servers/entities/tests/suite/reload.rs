//! Reading again after a change: only what changed is read, and a file that is being written or
//! fails to parse keeps its last good version, with a diagnostic saying so.

use std::io::Write;
use std::sync::Arc;

use crate::common::{TempRepo, call, diagnostics, ids, simple_definition, snapshot};
use entities::tools::service::Service;
use serde_json::json;
use tooltable::Server;

/// The `name` field of a User record.
fn name_of(server: &Server<Service>, id: &str) -> String {
    let got = call(server, "object_get", json!({ "entity": "User", "id": id })).unwrap();
    got["object"]["fields"]["name"].as_str().unwrap().to_owned()
}

/// A repository with the User `a` named Ann, and a server that has read it.
fn ann() -> (TempRepo, Server<Service>) {
    let repo = TempRepo::new();
    repo.write("entities/User.yaml", simple_definition("users")).write("data/users/a.yaml", "id: a\nname: Ann\n");
    let s = repo.server();
    assert_eq!(name_of(&s, "a"), "Ann");
    (repo, s)
}

#[test]
fn a_file_that_stops_parsing_keeps_its_last_good_version() {
    let (repo, s) = ann();
    repo.write("data/users/a.yaml", "id: a\nname: [Bea\n");
    assert_eq!(name_of(&s, "a"), "Ann");
    let said = diagnostics(&s);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].starts_with("data/users/a.yaml: invalid YAML"), "{said:?}");
    assert!(said[0].ends_with("; the last version that could be read is served"), "{said:?}");
    repo.write("data/users/a.yaml", "id: a\nname: Bea\n");
    assert_eq!(name_of(&s, "a"), "Bea");
    assert!(diagnostics(&s).is_empty());
    // A definition too.
    repo.write("entities/User.yaml", "Fields: [oops\n");
    assert_eq!(ids(&s, "User"), ["a"]);
    assert!(diagnostics(&s)[0].starts_with("entities/User.yaml: invalid YAML"));
}

#[cfg(target_os = "linux")]
#[test]
fn a_file_being_written_keeps_its_last_complete_version() {
    let (repo, s) = ann();
    // Half written, and what there is parses: a reader that did not know would serve `Be`.
    let mut writer =
        std::fs::OpenOptions::new().write(true).truncate(true).open(repo.path("data/users/a.yaml")).unwrap();
    writer.write_all(b"id: a\nname: Be").unwrap();
    assert_eq!(name_of(&s, "a"), "Ann");
    assert_eq!(diagnostics(&s), ["data/users/a.yaml: the file is being written; its last complete version is served"]);
    writer.write_all(b"a\n").unwrap();
    drop(writer);
    assert_eq!(name_of(&s, "a"), "Bea");
    assert!(diagnostics(&s).is_empty());
}

#[test]
fn a_reload_makes_again_only_what_changed() {
    let repo = TempRepo::users_and_posts();
    let s = repo.server();
    let before = snapshot(&s);
    repo.write("data/posts/q.yaml", "id: q\n");
    let after = snapshot(&s);
    assert!(!Arc::ptr_eq(&before, &after), "a change is a new read");
    let records = |snapshot: &entities::repository::Snapshot, name: &str| {
        Arc::clone(snapshot.entities[name].records.as_ref().expect("records"))
    };
    assert!(Arc::ptr_eq(&records(&before, "User"), &records(&after, "User")), "User's files did not change");
    assert!(!Arc::ptr_eq(&records(&before, "Post"), &records(&after, "Post")));
    assert_eq!(ids(&s, "Post"), ["p", "q"]);
    // A definition edit that changes nothing of the schema keeps the records too.
    repo.write("entities/User.yaml", simple_definition("users") + "# a comment\n");
    assert!(Arc::ptr_eq(&records(&after, "User"), &records(&snapshot(&s), "User")));
}
