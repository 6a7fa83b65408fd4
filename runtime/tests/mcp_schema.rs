//! Every result and notification the engine sends is one the MCP schema of its revision admits:
//! each is checked against its definition in `golden-sessions/mcp-schema/<revision>/schema.json`
//! (byte copies of the specification's).

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tooltable::content::{Content, ContentBlock, ResourceContents};
use tooltable::prompts::{Prompt, PromptMessage, PromptResult};
use tooltable::resources::{Resource, ResourceTemplate};
use tooltable::{Cx, Error, ErrorBody, ErrorKind, Server, table, tool};

mod support;

type Peer = support::Peer<()>;

/// Checks JSON against the definitions of one revision's schema.
struct Schema(Value);

impl Schema {
    fn of(revision: &str) -> Self {
        let path = format!("{}/../golden-sessions/mcp-schema/{revision}/schema.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        Schema(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}")))
    }

    /// Panics, naming each violation, unless `value` is a valid `definition`.
    #[track_caller]
    fn admits(&self, definition: &str, value: &Value) {
        assert!(self.0["$defs"].get(definition).is_some(), "the schema has no definition {definition}");
        let mut schema = self.0.clone();
        schema["$ref"] = json!(format!("#/$defs/{definition}"));
        let validator = jsonschema::validator_for(&schema).expect("the MCP schema compiles");
        let problems: Vec<String> =
            validator.iter_errors(value).map(|e| format!("{e} at {}", e.instance_path().as_str())).collect();
        assert!(problems.is_empty(), "not a valid {definition}: {problems:?}\n{value:#}");
    }
}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    a: f64,
    b: f64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: f64,
}

#[derive(Serialize, JsonSchema)]
struct Conflict {
    error: String,
    expected: u32,
}

impl ErrorBody for Conflict {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Conflict
    }
}

/// Adds two numbers, reporting progress and logging on the way.
#[tool(title = "Add", read_only)]
async fn add(cx: &Cx<()>, args: AddArgs) -> Result<Sum, Error> {
    cx.progress(1.0, Some(2.0), Some("halfway"));
    cx.info("adding");
    Ok(Sum { sum: args.a + args.b })
}

/// Always conflicts.
#[tool]
async fn conflict() -> Result<Sum, Conflict> {
    Err(Conflict { error: "Version conflict".into(), expected: 2 })
}

/// Gives an image and some text.
#[tool]
async fn picture() -> Result<Content, Error> {
    Ok(Content::new().with(ContentBlock::text("a dot")).with(ContentBlock::image(&[0x89, 0x50], "image/png")))
}

/// Asks the user a question first.
#[tool]
async fn asks(cx: &Cx<()>) -> Result<Value, Error> {
    let schema = json!({ "type": "object", "properties": { "name": { "type": "string" } } });
    cx.elicit_form("Your name?", schema).await.map_err(|e| Error::bad_request(e.to_string()))
}

/// Runs in the background when the client allows.
#[tool(task)]
async fn background() -> Result<Sum, Error> {
    Ok(Sum { sum: 1.0 })
}

fn server() -> Server<()> {
    Server::builder(())
        .info("schema-test", "1.0.0")
        .instructions("Adds numbers.")
        .tools(table![add, conflict, picture, asks, background])
        .resource(Resource::new("test://a", "a").description("A text").mime_type("text/plain"), |_, req| async move {
            Ok(vec![ResourceContents::text(&req.uri, "text/plain", "A")])
        })
        .resource_template(ResourceTemplate::new("test://items/{id}", "item"), |_, req| async move {
            Ok(vec![ResourceContents::blob(&req.uri, "application/octet-stream", &[1, 2, 3])])
        })
        .prompt(Prompt::new("greet").description("Greets").argument("name", "Whom", true), |_, args| async move {
            let text = format!("Hello, {}", args["name"]);
            Ok(PromptResult { description: None, messages: vec![PromptMessage::user(ContentBlock::text(text))] })
        })
        .completion(|_, _| async { Ok(vec!["alpha".to_owned(), "beta".to_owned()]) })
        .page_size(2)
        .build()
        .unwrap()
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// The result of request `id`, checked as the schema's JSON-RPC response, and the
/// notifications sent before it, each checked as a JSON-RPC notification.
async fn exchange(peer: &mut Peer, schema: &Schema, id: i64) -> (Value, Vec<Value>) {
    let mut sent = Vec::new();
    loop {
        let (msg, _) = peer.next().await;
        if msg.get("method").is_some() {
            schema.admits("JSONRPCNotification", &msg);
            sent.push(msg);
        } else if msg["id"] == id {
            schema.admits("JSONRPCResultResponse", &msg);
            return (msg["result"].clone(), sent);
        }
    }
}

async fn result(peer: &mut Peer, schema: &Schema, id: i64) -> Value {
    exchange(peer, schema, id).await.0
}

/// The messages that arrive within a moment, each checked as a JSON-RPC message.
async fn notifications(peer: &mut Peer, schema: &Schema) -> Vec<Value> {
    let mut seen = Vec::new();
    while let Ok((msg, _)) = tokio::time::timeout(Duration::from_millis(200), peer.next()).await {
        if msg.get("method").is_some() {
            schema.admits("JSONRPCNotification", &msg);
            seen.push(msg);
        }
    }
    seen
}

fn named<'a>(messages: &'a [Value], method: &str) -> &'a Value {
    messages.iter().find(|m| m["method"] == method).unwrap_or_else(|| panic!("no {method} in {messages:?}"))
}

#[tokio::test]
async fn every_answer_of_a_handshake_session_is_valid_under_2025_11_25() {
    let schema = Schema::of("2025-11-25");
    let mut peer = Peer::connect(&server());
    peer.send(request(0, "initialize", json!({ "protocolVersion": "2025-11-25", "capabilities": {} })));
    schema.admits("InitializeResult", &result(&mut peer, &schema, 0).await);
    peer.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    schema
        .admits("LoggingMessageNotification", named(&notifications(&mut peer, &schema).await, "notifications/message"));

    let calls = [
        (1, "ping", json!({}), "EmptyResult"),
        (2, "tools/list", json!({}), "ListToolsResult"),
        (
            3,
            "tools/call",
            json!({ "name": "add", "arguments": { "a": 1, "b": 2 }, "_meta": { "progressToken": "p" } }),
            "CallToolResult",
        ),
        (4, "tools/call", json!({ "name": "conflict" }), "CallToolResult"),
        (5, "tools/call", json!({ "name": "picture" }), "CallToolResult"),
        (6, "tools/call", json!({ "name": "add", "arguments": { "a": "one" } }), "CallToolResult"),
        (7, "resources/list", json!({}), "ListResourcesResult"),
        (8, "resources/templates/list", json!({}), "ListResourceTemplatesResult"),
        (9, "resources/read", json!({ "uri": "test://a" }), "ReadResourceResult"),
        (10, "resources/read", json!({ "uri": "test://items/7" }), "ReadResourceResult"),
        (11, "prompts/list", json!({}), "ListPromptsResult"),
        (12, "prompts/get", json!({ "name": "greet", "arguments": { "name": "Ada" } }), "GetPromptResult"),
        (
            13,
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "greet" }, "argument": { "name": "name", "value": "a" } }),
            "CompleteResult",
        ),
        (14, "logging/setLevel", json!({ "level": "debug" }), "EmptyResult"),
        (15, "resources/subscribe", json!({ "uri": "test://a" }), "EmptyResult"),
    ];
    for (id, method, params, definition) in calls {
        peer.send(request(id, method, params));
        let answer = result(&mut peer, &schema, id).await;
        schema.admits(definition, &answer);
        if id == 2 {
            assert!(answer.get("nextCursor").is_some(), "the listing is paged: {answer}");
            let cursor = answer["nextCursor"].clone();
            peer.send(request(100, "tools/list", json!({ "cursor": cursor })));
            schema.admits("ListToolsResult", &result(&mut peer, &schema, 100).await);
        }
    }
    let mut peer = Peer::initialized(&server(), json!({}));
    peer.send(request(1, "logging/setLevel", json!({ "level": "debug" })));
    peer.send(request(
        2,
        "tools/call",
        json!({ "name": "add", "arguments": { "a": 1, "b": 2 }, "_meta": { "progressToken": 9 } }),
    ));
    let (_, sent) = exchange(&mut peer, &schema, 2).await;
    schema.admits("ProgressNotification", named(&sent, "notifications/progress"));
    schema.admits("LoggingMessageNotification", named(&sent, "notifications/message"));
}

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/logLevel": "debug",
    })
}

#[tokio::test]
async fn every_answer_of_a_stateless_request_is_valid_under_2026_07_28() {
    let schema = Schema::of("2026-07-28");
    let server = server();
    let with_meta = |mut params: Value| {
        params["_meta"] = meta(json!({ "elicitation": {} }));
        params
    };
    let calls = [
        ("server/discover", json!({}), "DiscoverResult"),
        ("tools/list", json!({}), "ListToolsResult"),
        ("tools/call", json!({ "name": "add", "arguments": { "a": 1, "b": 2 } }), "CallToolResult"),
        ("tools/call", json!({ "name": "conflict" }), "CallToolResult"),
        ("tools/call", json!({ "name": "picture" }), "CallToolResult"),
        ("tools/call", json!({ "name": "asks" }), "InputRequiredResult"),
        ("resources/list", json!({}), "ListResourcesResult"),
        ("resources/templates/list", json!({}), "ListResourceTemplatesResult"),
        ("resources/read", json!({ "uri": "test://items/7" }), "ReadResourceResult"),
        ("prompts/list", json!({}), "ListPromptsResult"),
        ("prompts/get", json!({ "name": "greet", "arguments": { "name": "Ada" } }), "GetPromptResult"),
        (
            "completion/complete",
            json!({ "ref": { "type": "ref/resource", "uri": "test://items/{id}" }, "argument": { "name": "id", "value": "" } }),
            "CompleteResult",
        ),
    ];
    for (id, (method, params, definition)) in (1..).zip(calls) {
        let mut peer = Peer::connect(&server);
        peer.send(request(id, method, with_meta(params.clone())));
        let (answer, sent) = exchange(&mut peer, &schema, id).await;
        schema.admits(definition, &answer);
        assert_eq!(answer["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "schema-test", "{answer}");
        if params["name"] == "add" {
            schema.admits("LoggingMessageNotification", named(&sent, "notifications/message"));
        }
    }

    let mut peer = Peer::connect(&server);
    let listen = json!({ "notifications": { "toolsListChanged": true, "resourceSubscriptions": ["test://a"] } });
    peer.send(request(50, "subscriptions/listen", with_meta(listen)));
    let (ack, _) = peer.next().await;
    schema.admits("SubscriptionsAcknowledgedNotification", &ack);
    server.resource_updated("test://a");
    let (updated, _) = peer.next().await;
    schema.admits("ResourceUpdatedNotification", &updated);
    assert_eq!(updated["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 50, "{updated}");
}

#[tokio::test]
async fn the_stateless_refusals_are_the_errors_2026_07_28_defines() {
    let schema = Schema::of("2026-07-28");
    let server = server();
    let refused = |params: Value| async {
        let mut peer = Peer::connect(&server);
        peer.send(request(1, "tools/call", params));
        let response = peer.response(1).await;
        schema.admits("JSONRPCErrorResponse", &response);
        response
    };
    let mut old = meta(json!({}));
    old["io.modelcontextprotocol/protocolVersion"] = json!("2030-01-01");
    let unsupported = refused(json!({ "name": "add", "_meta": old })).await;
    schema.admits("UnsupportedProtocolVersionError", &unsupported);
    let undeclared = refused(json!({ "name": "asks", "_meta": meta(json!({})) })).await;
    schema.admits("MissingRequiredClientCapabilityError", &undeclared);
    let unknown = refused(json!({ "name": "nope", "_meta": meta(json!({})) })).await;
    schema.admits("InvalidParamsError", &unknown["error"]);
}
