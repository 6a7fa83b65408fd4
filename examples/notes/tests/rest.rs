//! The built binary under `serve`: one REST call of each route shape, with serde's names in the
//! path, and the status each error kind maps to.

mod common;

use common::{Served, http};
use serde_json::json;

#[test]
fn every_route_shape_answers_over_rest() {
    let served = Served::notes();
    let base = served.base.as_str();

    // A JSON body of the arguments, answered 201 as the tool states.
    let created = http(base, "POST", "/notes", &[], Some(r#"{"title":"Groceries","text":"milk","tags":["home"]}"#));
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(created.json(), json!({ "noteId": 1, "title": "Groceries", "text": "milk", "tags": ["home"] }));

    // Query arguments, typed by the input schema (`limit` is an integer).
    let listed = http(base, "GET", "/notes?tag=home&limit=1", &[], None);
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert_eq!(listed.json()["notes"][0]["title"], "Groceries");

    // A path parameter: `note_id` in the route, `{noteId}` as served.
    let got = http(base, "GET", "/notes/1", &[], None);
    assert_eq!(got.status, 200, "{}", got.body);
    assert_eq!(got.json()["noteId"], 1);

    // One field as the whole body: a JSON string.
    let edited = http(base, "PUT", "/notes/1/text", &[], Some(r#""eggs""#));
    assert_eq!(edited.status, 200, "{}", edited.body);
    assert_eq!(edited.json()["text"], "eggs");

    let deleted = http(base, "DELETE", "/notes/1", &[], None);
    assert_eq!(deleted.status, 200, "{}", deleted.body);

    // Errors: the status the kind maps to, the error type's body.
    let gone = http(base, "GET", "/notes/1", &[], None);
    assert_eq!(gone.status, 404, "{}", gone.body);
    assert_eq!(gone.json()["error"], "no_such_note");
    http(base, "POST", "/notes", &[], Some(r#"{"title":"Trip","text":""}"#));
    let taken = http(base, "POST", "/notes", &[], Some(r#"{"title":"Trip","text":""}"#));
    assert_eq!(taken.status, 409, "{}", taken.body);
    let untitled = http(base, "POST", "/notes", &[], Some(r#"{"title":"","text":""}"#));
    assert_eq!(untitled.status, 422, "{}", untitled.body);
    assert_eq!(untitled.json()["error"], "invalid_title");
}

#[test]
fn the_openapi_document_uses_the_served_names() {
    let served = Served::notes();
    let doc = http(&served.base, "GET", "/openapi.json", &[], None).json();
    let paths = doc["paths"].as_object().unwrap();
    let mut names: Vec<&str> = paths.keys().map(String::as_str).collect();
    names.sort();
    assert_eq!(names, ["/notes", "/notes/{noteId}", "/notes/{noteId}/text"]);
}

#[test]
fn the_openapi_document_describes_failures_with_the_error_type() {
    let served = Served::notes();
    let doc = http(&served.base, "GET", "/openapi.json", &[], None).json();
    let not_found =
        &doc["paths"]["/notes/{noteId}"]["get"]["responses"]["404"]["content"]["application/json"]["schema"];
    let component = not_found["anyOf"][0]["$ref"].as_str().and_then(|r| r.strip_prefix("#/components/schemas/"));
    let note_error = &doc["components"]["schemas"][component.unwrap_or_else(|| panic!("{not_found}"))];
    // The body a REST caller gets is one of the cases the document lists, with every field it requires.
    let body = http(&served.base, "GET", "/notes/99", &[], None).json();
    let case = note_error["oneOf"]
        .as_array()
        .and_then(|cases| cases.iter().find(|case| case["properties"]["error"]["const"] == body["error"]));
    let case = case.unwrap_or_else(|| panic!("{body} is none of {note_error}"));
    let required = case["required"].as_array().unwrap();
    assert!(
        required.iter().all(|field| body.get(field.as_str().unwrap()).is_some()),
        "{body} lacks one of {required:?}"
    );
}
