//! The built binary over stdio, as a host runs it: the handshake, the tools, a structured error,
//! the resource and its template, the prompt, and completion.

mod common;

use common::{NOTES, StdioClient};
use serde_json::{Value, json};

fn client() -> StdioClient {
    StdioClient::spawn(NOTES, &["mcp".into()])
}

#[test]
fn the_handshake_declares_what_the_server_offers() {
    let mut client = client();
    let init = client.initialize();
    assert_eq!(init["serverInfo"]["name"], "notes-example");
    for capability in ["tools", "resources", "prompts", "completions"] {
        assert!(init["capabilities"].get(capability).is_some(), "{capability}: {init}");
    }
    let tools = client.request(1, "tools/list", json!({}));
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["create_note", "list_notes", "get_note", "set_note_text", "delete_note"]);
}

#[test]
fn a_call_answers_with_structured_content_and_so_does_its_error() {
    let mut client = client();
    client.initialize();
    let created = client.request(
        1,
        "tools/call",
        json!({ "name": "create_note", "arguments": { "title": "Groceries", "text": "milk" } }),
    );
    assert_eq!(created["result"]["isError"], false, "{created}");
    assert_eq!(created["result"]["structuredContent"]["noteId"], 1);

    let missing = client.request(2, "tools/call", json!({ "name": "get_note", "arguments": { "noteId": 9 } }));
    assert_eq!(missing["result"]["isError"], true, "{missing}");
    assert_eq!(
        missing["result"]["structuredContent"]["error"], "no_such_note",
        "the error type has a schema: {missing}"
    );
    assert_eq!(missing["result"]["structuredContent"]["id"], 9);
}

#[test]
fn the_resource_the_template_the_prompt_and_completion_read_the_notebook() {
    let mut client = client();
    client.initialize();
    client.request(
        1,
        "tools/call",
        json!({ "name": "create_note", "arguments": { "title": "Trip", "text": "Lisbon in May" } }),
    );

    let index = client.request(2, "resources/read", json!({ "uri": "notes://index" }));
    assert_eq!(index["result"]["contents"][0]["text"], r#"[{"id":1,"title":"Trip"}]"#, "{index}");
    let note = client.request(3, "resources/read", json!({ "uri": "notes://note/1" }));
    assert_eq!(note["result"]["contents"][0]["text"], "# Trip\n\nLisbon in May", "{note}");
    assert_eq!(note["result"]["contents"][0]["mimeType"], "text/markdown");
    let templates = client.request(4, "resources/templates/list", json!({}));
    assert_eq!(templates["result"]["resourceTemplates"][0]["uriTemplate"], "notes://note/{id}");
    let absent = client.request(5, "resources/read", json!({ "uri": "notes://note/2" }));
    assert!(absent["error"].is_object(), "{absent}");
    let not_an_id = client.request(6, "resources/read", json!({ "uri": "notes://note/first" }));
    assert_eq!(not_an_id["error"]["code"], -32602, "{not_an_id}");

    let prompt = client.request(7, "prompts/get", json!({ "name": "summarize_note", "arguments": { "id": "1" } }));
    let text = prompt["result"]["messages"][0]["content"]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("Summarize this note") && text.contains("Lisbon in May"), "{prompt}");
    let no_id = client.request(8, "prompts/get", json!({ "name": "summarize_note", "arguments": {} }));
    assert_eq!(no_id["error"]["code"], -32602, "{no_id}");

    for (id, reference) in [
        (9, json!({ "type": "ref/prompt", "name": "summarize_note" })),
        (10, json!({ "type": "ref/resource", "uri": "notes://note/{id}" })),
    ] {
        let completed = client.request(
            id,
            "completion/complete",
            json!({ "ref": reference, "argument": { "name": "id", "value": "" } }),
        );
        assert_eq!(completed["result"]["completion"]["values"], json!(["1"]), "{completed}");
    }
    let none = client.request(11, "completion/complete", json!({ "ref": { "type": "ref/prompt", "name": "summarize_note" }, "argument": { "name": "id", "value": "2" } }));
    assert_eq!(none["result"]["completion"]["values"], json!([]), "{none}");
}

#[test]
fn a_subscriber_hears_of_every_change_to_the_index_and_to_the_note() {
    let mut client = client();
    client.initialize();
    for (id, uri) in [(1, "notes://index"), (2, "notes://note/1")] {
        let subscribed = client.request(id, "resources/subscribe", json!({ "uri": uri }));
        assert!(subscribed["result"].is_object(), "{subscribed}");
    }
    let calls = [
        ("create_note", json!({ "title": "Trip", "text": "" })),
        ("set_note_text", json!({ "noteId": 1, "text": "Lisbon" })),
        ("delete_note", json!({ "noteId": 1 })),
    ];
    for (id, (tool, arguments)) in (3..).zip(calls) {
        client.notifications.clear();
        let answer = client.request(id, "tools/call", json!({ "name": tool, "arguments": arguments }));
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        let updated: Vec<&Value> = client
            .notifications
            .iter()
            .filter(|m| m["method"] == "notifications/resources/updated")
            .map(|m| &m["params"]["uri"])
            .collect();
        assert_eq!(updated, [&json!("notes://index"), &json!("notes://note/1")], "{tool}");
    }
    client.notifications.clear();
    client.request(6, "tools/call", json!({ "name": "get_note", "arguments": { "noteId": 1 } }));
    assert!(client.notifications.is_empty(), "a failed read changes nothing: {:?}", client.notifications);
}
