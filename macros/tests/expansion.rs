//! What `#[tool]` generates, seen through the runtime's `Tool` trait.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tooltable::tool::{Annotations, Output, Tool};
use tooltable::{Cx, ErrorKind, Server};
use tooltable_macros::tool;

pub struct Models {
    pub prefix: &'static str,
}

#[derive(Deserialize, JsonSchema)]
pub struct GetStateArgs {
    pub id: String,
    #[serde(default)]
    pub fields: Option<Vec<String>>,
}

#[derive(Serialize, JsonSchema)]
pub struct State {
    pub id: String,
    pub fields: usize,
}

/// Read a model's merged state, optionally projected.
///
/// Second paragraph.
#[tool(rest = "GET /models/{id}/state", read_only, idempotent, title = "Get state")]
pub async fn get_state(cx: &Cx<Models>, args: GetStateArgs) -> Result<State, tooltable::Error> {
    if args.id == "missing" {
        return Err(tooltable::Error::not_found(format!("no model {}", args.id)));
    }
    Ok(State { id: format!("{}{}", cx.prefix, args.id), fields: args.fields.map_or(0, |f| f.len()) })
}

#[derive(Deserialize, JsonSchema)]
pub struct CreateArgs {
    pub kind: String,
    pub model: Value,
}

#[doc = "Create a model."]
#[doc = ""]
#[doc = "  Indented by two: one space is kept."]
#[tool(
    name = "models.create",
    rest = "POST /kinds/{kind}/models",
    body = "model",
    status = 201,
    destructive = false,
    open_world,
    allow_unknown_args
)]
async fn r#create(args: CreateArgs) -> Result<Value, tooltable::Error> {
    Ok(json!({ "kind": args.kind, "model": args.model }))
}

/** Count the models.
Block comments count too. */
#[tool(read_only = true)]
async fn count(cx: Cx<Models>) -> Result<u32, tooltable::Error> {
    Ok(cx.prefix.len() as u32)
}

fn server() -> Server<Models> {
    Server::builder(Models { prefix: "m-" })
        .tools(tooltable::table![get_state, create, count])
        .build()
        .expect("the runtime's table accepts every generated tool")
}

#[test]
fn meta_of_a_read_tool() {
    let meta = Tool::<Models>::meta(&get_state);
    assert_eq!(meta.name, "get_state");
    assert_eq!(meta.title, Some("Get state"));
    assert_eq!(meta.description, "Read a model's merged state, optionally projected.\n\nSecond paragraph.");
    assert_eq!(
        meta.annotations,
        Annotations { read_only: Some(true), destructive: None, idempotent: Some(true), open_world: None },
        "only what the tool states"
    );
    let rest = meta.rest.expect("a route");
    assert_eq!((rest.method, rest.path, rest.body, rest.status), ("GET", "/models/{id}/state", None, 200));
    assert!(!meta.allow_unknown_args);

    let input = (meta.input_schema)();
    assert_eq!(input["type"], "object");
    assert!(input["properties"]["id"].is_object());
    let output = (meta.output_schema)().expect("a struct result declares an outputSchema");
    assert!(output["properties"]["fields"].is_object());
}

#[test]
fn meta_of_a_write_tool() {
    let meta = Tool::<Models>::meta(&create);
    assert_eq!(meta.name, "models.create");
    assert_eq!(meta.title, None);
    assert_eq!(meta.description, "Create a model.\n\n Indented by two: one space is kept.");
    assert_eq!(
        meta.annotations,
        Annotations { read_only: None, destructive: Some(false), idempotent: None, open_world: Some(true) }
    );
    let rest = meta.rest.expect("a route");
    assert_eq!((rest.method, rest.path, rest.body, rest.status), ("POST", "/kinds/{kind}/models", Some("model"), 201));
    assert!(meta.allow_unknown_args);
    assert_eq!((meta.output_schema)(), None, "`Value` is no object schema");
}

#[test]
fn meta_without_arguments() {
    let meta = Tool::<Models>::meta(&count);
    assert_eq!(meta.name, "count");
    assert_eq!(meta.description, "Count the models.\nBlock comments count too.");
    assert_eq!(meta.annotations.read_only, Some(true));
    assert!(meta.rest.is_none());
    let input = (meta.input_schema)();
    assert_eq!(input["type"], "object");
}

#[tokio::test]
async fn call_parses_arguments_and_returns_the_result() {
    let server = server();
    let cx = server.cx(&tooltable::transport::RequestContext::new(tooltable::context::Transport::InProcess));

    let ok = get_state.call(cx.clone(), json!({ "id": "a", "fields": ["x", "y"] })).await;
    assert_eq!(ok, Ok(Output::Json(json!({ "id": "m-a", "fields": 2 }))));

    let not_found = get_state.call(cx.clone(), json!({ "id": "missing" })).await.unwrap_err();
    assert_eq!(not_found.kind, ErrorKind::NotFound);
    assert_eq!(not_found.body, json!({ "error": "no model missing" }));

    let invalid = get_state.call(cx.clone(), json!({ "id": 7 })).await.unwrap_err();
    assert_eq!(invalid.kind, ErrorKind::InvalidInput);

    let created = Tool::<Models>::call(&create, cx.clone(), json!({ "kind": "k", "model": [1] })).await;
    assert_eq!(created, Ok(Output::Json(json!({ "kind": "k", "model": [1] }))));

    assert_eq!(count.call(cx.clone(), json!({})).await, Ok(Output::Json(json!(2))));
    let extra = count.call(cx, json!({ "unexpected": 1 })).await.unwrap_err();
    assert_eq!(extra.kind, ErrorKind::InvalidInput, "a tool without arguments takes none");
}

#[tokio::test]
async fn run_is_the_function_as_written() {
    let server = server();
    let cx = server.cx(&tooltable::transport::RequestContext::new(tooltable::context::Transport::InProcess));
    let state = get_state::run(&cx, GetStateArgs { id: "b".into(), fields: None }).await.unwrap();
    assert_eq!((state.id.as_str(), state.fields), ("m-b", 0));
}
