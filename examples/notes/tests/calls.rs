//! Every tool called in process with `Server::call`: results, and each error with its kind.

use serde_json::{Value, json};
use tooltable::{Error, ErrorKind, Server};

use notes_example::{MAX_NOTES, Notebook, server};

async fn call(server: &Server<Notebook>, tool: &str, args: Value) -> Result<Value, Error> {
    server.call(tool, args).await
}

async fn groceries(server: &Server<Notebook>) -> Value {
    call(server, "create_note", json!({ "title": "Groceries", "text": "milk", "tags": ["home"] })).await.unwrap()
}

#[tokio::test]
async fn create_note_gives_ids_in_order_and_refuses_bad_titles() {
    let server = server().unwrap();
    assert_eq!(
        groceries(&server).await,
        json!({ "noteId": 1, "title": "Groceries", "text": "milk", "tags": ["home"] })
    );
    let second = call(&server, "create_note", json!({ "title": "Trip", "text": "Lisbon" })).await.unwrap();
    assert_eq!(second, json!({ "noteId": 2, "title": "Trip", "text": "Lisbon", "tags": [] }), "tags default to none");

    let taken = call(&server, "create_note", json!({ "title": "Groceries", "text": "" })).await.unwrap_err();
    assert_eq!(taken.kind, ErrorKind::Conflict);
    assert_eq!(taken.body["error"], "title_taken");
    assert_eq!(taken.body["title"], "Groceries");

    for title in ["", "   ", &"x".repeat(201)] {
        let invalid = call(&server, "create_note", json!({ "title": title, "text": "" })).await.unwrap_err();
        assert_eq!(invalid.kind, ErrorKind::InvalidInput, "{title:?}");
        assert_eq!(invalid.body["error"], "invalid_title");
    }
    let longest = call(&server, "create_note", json!({ "title": "é".repeat(200), "text": "" })).await;
    assert!(longest.is_ok(), "the limit counts characters, not bytes: {longest:?}");
}

#[tokio::test]
async fn create_note_stops_at_the_notebook_limit() {
    let server = server().unwrap();
    for i in 0..MAX_NOTES {
        call(&server, "create_note", json!({ "title": format!("note {i}"), "text": "" })).await.unwrap();
    }
    let full = call(&server, "create_note", json!({ "title": "one more", "text": "" })).await.unwrap_err();
    assert_eq!(full.kind, ErrorKind::TooLarge);
    assert_eq!(full.body["error"], "notebook_full");
    assert_eq!(full.body["limit"], MAX_NOTES);
}

#[tokio::test]
async fn list_notes_filters_by_tag_and_limits() {
    let server = server().unwrap();
    groceries(&server).await;
    call(&server, "create_note", json!({ "title": "Trip", "text": "", "tags": ["travel"] })).await.unwrap();
    call(&server, "create_note", json!({ "title": "Paint", "text": "", "tags": ["home"] })).await.unwrap();

    let titles = |list: Value| -> Vec<String> {
        list["notes"].as_array().unwrap().iter().map(|n| n["title"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(titles(call(&server, "list_notes", json!({})).await.unwrap()), ["Groceries", "Trip", "Paint"]);
    assert_eq!(titles(call(&server, "list_notes", json!({ "tag": "home" })).await.unwrap()), ["Groceries", "Paint"]);
    assert_eq!(titles(call(&server, "list_notes", json!({ "tag": "home", "limit": 1 })).await.unwrap()), ["Groceries"]);
    assert_eq!(titles(call(&server, "list_notes", json!({ "tag": "work" })).await.unwrap()), Vec::<String>::new());
}

#[tokio::test]
async fn get_set_and_delete_name_the_note_by_its_camel_case_id() {
    let server = server().unwrap();
    groceries(&server).await;
    assert_eq!(call(&server, "get_note", json!({ "noteId": 1 })).await.unwrap()["text"], "milk");

    let edited = call(&server, "set_note_text", json!({ "noteId": 1, "text": "eggs" })).await.unwrap();
    assert_eq!(edited["text"], "eggs");
    assert_eq!(call(&server, "get_note", json!({ "noteId": 1 })).await.unwrap()["text"], "eggs");

    assert_eq!(call(&server, "delete_note", json!({ "noteId": 1 })).await.unwrap()["title"], "Groceries");
    for tool in ["get_note", "delete_note"] {
        let gone = call(&server, tool, json!({ "noteId": 1 })).await.unwrap_err();
        assert_eq!(gone.kind, ErrorKind::NotFound, "{tool}");
        assert_eq!(gone.body["error"], "no_such_note");
        assert_eq!(gone.body["id"], 1);
    }
    let missing = call(&server, "set_note_text", json!({ "noteId": 7, "text": "" })).await.unwrap_err();
    assert_eq!(missing.kind, ErrorKind::NotFound);
}

#[tokio::test]
async fn the_rust_field_name_is_refused_by_name() {
    let server = server().unwrap();
    let refused = call(&server, "get_note", json!({ "note_id": 1 })).await.unwrap_err();
    assert_eq!(refused.kind, ErrorKind::InvalidInput);
    assert!(refused.body.to_string().contains("note_id"), "{}", refused.body);
}

#[test]
fn annotations_are_the_hints_each_operation_states() {
    let server = server().unwrap();
    let hints: Vec<(String, Value)> = server
        .table()
        .descriptors()
        .iter()
        .map(|d| {
            let tool = d.to_mcp();
            (tool["name"].as_str().unwrap().to_owned(), tool.get("annotations").cloned().unwrap_or(json!({})))
        })
        .collect();
    assert_eq!(
        hints,
        [
            ("create_note".into(), json!({ "destructiveHint": false })),
            ("list_notes".into(), json!({ "readOnlyHint": true, "idempotentHint": true })),
            ("get_note".into(), json!({ "readOnlyHint": true, "idempotentHint": true })),
            ("set_note_text".into(), json!({ "idempotentHint": true })),
            ("delete_note".into(), json!({})),
        ]
    );
}
