//! The descriptors a representative table derives from its functions.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tooltable::content::{Content, ContentBlock};
use tooltable::context::Transport;
use tooltable::tool::TableError;
use tooltable::transport::RequestContext;
use tooltable::{Cx, Error, ErrorBody, ErrorKind, Server, table, tool};

#[derive(Default)]
struct Models;

#[derive(Deserialize, JsonSchema)]
struct ModelId {
    /// The model's id.
    id: String,
}

// Only the schemas of these argument types matter here, not what the functions read.
#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct GetStateArgs {
    /// The model's id.
    id: String,
    /// Canonical addresses of the subtrees to return.
    paths: Option<Vec<String>>,
    /// Nesting beyond this depth collapses to a marker.
    depth: Option<u32>,
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct MutateArgs {
    id: String,
    /// `{"$.path": value}`.
    mutations: serde_json::Map<String, Value>,
    #[serde(default, rename = "includeTraces")]
    include_traces: bool,
}

/// What `create_model` answers.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ModelInfo {
    id: String,
    version: String,
    derivation_count: usize,
}

#[derive(Serialize, JsonSchema)]
struct Violation {
    path: String,
    keyword: String,
    message: String,
}

/// The seed's schema-violation shape, as a plain Rust type; its schema joins the outputSchema.
#[derive(Serialize, JsonSchema)]
struct SchemaViolation {
    error: &'static str,
    violations: Vec<Violation>,
}

impl ErrorBody for SchemaViolation {
    fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidInput
    }
}

/// List the models in the registry.
#[tool(title = "List models", read_only, idempotent, rest = "GET /models")]
async fn list_models(_cx: &Cx<Models>) -> Result<Vec<String>, Error> {
    Ok(vec![])
}

/// Create a model from a full ModelSpec.
///
/// The spec is validated first; a spec with errors creates nothing.
#[tool(title = "Create model", rest = "POST /models", body = "spec", status = 201,
            output_schema = json!({ "type": "object", "properties": { "id": { "type": "string" } } }))]
async fn create_model(_cx: &Cx<Models>, args: CreateArgs) -> Result<ModelInfo, Error> {
    Ok(ModelInfo { id: args.spec.to_string(), version: "1.0.0".into(), derivation_count: 0 })
}

#[derive(Deserialize, JsonSchema)]
struct CreateArgs {
    spec: Value,
}

/// Read a model's merged state, optionally projected.
#[tool(title = "Get state", read_only, idempotent, rest = "GET /models/{id}/state")]
async fn get_state(_cx: &Cx<Models>, args: GetStateArgs) -> Result<Value, Error> {
    Err(Error::not_found(format!("unknown model {}", args.id)))
}

/// Apply mutations and run the reactive cycle.
#[tool(title = "Mutate", rest = "POST /models/{id}/mutations", body = "mutations")]
async fn mutate(_cx: &Cx<Models>, args: MutateArgs) -> Result<ModelInfo, SchemaViolation> {
    Err(SchemaViolation {
        error: "Schema violation",
        violations: vec![Violation { path: args.id, keyword: "type".into(), message: "x".into() }],
    })
}

/// Delete a model.
#[tool(title = "Delete model", destructive, idempotent, rest = "DELETE /models/{id}")]
async fn delete_model(_cx: &Cx<Models>, args: ModelId) -> Result<Value, Error> {
    Ok(json!({ "deleted": args.id }))
}

/// Render a chart of the model.
#[tool(name = "chart.render", read_only, open_world)]
async fn render_chart() -> Result<Content, Error> {
    Ok(ContentBlock::text("chart").into())
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PutItemArgs {
    item_id: String,
    new_value: Value,
}

/// Replace an item: a route written with the Rust field names, served with serde's.
#[tool(rest = "PUT /items/{item_id}", body = "new_value", idempotent)]
async fn put_item(args: PutItemArgs) -> Result<Value, Error> {
    Ok(json!({ "id": args.item_id, "value": args.new_value }))
}

/// Also on `DELETE /models/{id}`.
#[tool(rest = "DELETE /models/{model}")]
async fn remove_model(args: RemoveArgs) -> Result<Value, Error> {
    Ok(json!(args.model))
}

#[derive(Deserialize, JsonSchema)]
struct RemoveArgs {
    model: String,
}

/// A value serde refuses to write.
#[derive(JsonSchema)]
struct Unwritable {}

impl Serialize for Unwritable {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("this value cannot be written"))
    }
}

/// Returns a value that cannot be serialised.
#[tool]
async fn unwritable() -> Result<Unwritable, Error> {
    Ok(Unwritable {})
}

fn server() -> Server<Models> {
    Server::builder(Models)
        .tools(table![list_models, create_model, get_state, mutate, delete_model, render_chart])
        .build()
        .expect("a valid table")
}

#[test]
fn descriptors_of_a_representative_table() {
    let tools: Vec<Value> = server().table().descriptors().iter().map(|d| d.to_mcp()).collect();
    insta::assert_json_snapshot!("tools", tools);
}

#[test]
fn rest_routes_are_carried_for_the_http_transport() {
    let routes: Vec<Value> = server()
        .table()
        .descriptors()
        .iter()
        .map(|d| match &d.rest {
            Some(r) => json!([d.name, r.method, r.path, r.body, r.status, r.path_params().collect::<Vec<_>>()]),
            None => json!([d.name, null]),
        })
        .collect();
    assert_eq!(
        routes,
        [
            json!(["list_models", "GET", "/models", null, 200, []]),
            json!(["create_model", "POST", "/models", "spec", 201, []]),
            json!(["get_state", "GET", "/models/{id}/state", null, 200, ["id"]]),
            json!(["mutate", "POST", "/models/{id}/mutations", "mutations", 200, ["id"]]),
            json!(["delete_model", "DELETE", "/models/{id}", null, 200, ["id"]]),
            json!(["chart.render", null]),
        ]
    );
}

#[test]
fn an_error_type_with_a_schema_joins_the_output_schema() {
    let tools = server().table().descriptors();
    let tool = |name: &str| tools.iter().find(|d| d.name == name).unwrap();
    let schema = tool("mutate").to_mcp()["outputSchema"].clone();
    assert_eq!(schema["type"], "object");
    let validator = jsonschema::validator_for(&schema).unwrap();
    let error =
        json!({ "error": "Schema violation", "violations": [{ "path": "/a", "keyword": "type", "message": "x" }] });
    assert!(validator.is_valid(&error), "the error body is admitted");
    assert!(validator.is_valid(&json!({ "id": "m", "version": "1.0.0", "derivationCount": 1 })), "so is a success");
    assert!(!validator.is_valid(&json!({ "error": "Invalid arguments" })), "other bodies are not");
    let success = tool("mutate").output_schema.clone().unwrap();
    assert_eq!(
        success["properties"]["derivationCount"],
        json!({ "type": "integer", "minimum": 0, "maximum": u64::MAX }),
        "no `uint`, its range instead"
    );
    assert!(tool("get_state").error_schema.is_none(), "`Error` states no schema");
}

#[test]
fn routes_follow_the_names_serde_reads() {
    let s = Server::builder(Models).tools(table![put_item]).build().unwrap();
    let route = s.table().descriptors()[0].rest.clone().unwrap();
    assert_eq!((route.path.as_str(), route.body.as_deref()), ("/items/{itemId}", Some("newValue")));
}

#[test]
fn two_tools_on_one_route_are_refused_with_both_names() {
    let err = Server::builder(Models).tools(table![delete_model, remove_model]).build().err().unwrap();
    assert_eq!(
        err.to_string(),
        "tools \"delete_model\" and \"remove_model\" are both served at DELETE /models/{model}: give each its own route"
    );
}

#[tokio::test]
async fn a_result_that_cannot_be_serialised_is_an_internal_failure() {
    let s = Server::builder(Models).tools(table![unwritable]).build().unwrap();
    let failure = s.call("unwritable", json!({})).await.unwrap_err();
    assert_eq!(failure.kind, ErrorKind::Internal);
    assert_eq!(failure.body["error"], "the tool's result could not be serialised: this value cannot be written");
}

#[test]
fn a_table_with_a_duplicate_name_is_refused() {
    let err = Server::builder(Models).tools(table![list_models, list_models]).build().err();
    assert_eq!(err, Some(TableError::DuplicateName { name: "list_models".into() }));
    assert_eq!(err.unwrap().to_string(), "two tools are named \"list_models\"");
}

#[tokio::test]
async fn errors_are_plain_rust_types_with_a_parsed_body() {
    let s = server();
    let outcome = s
        .call_tool(
            s.cx(&RequestContext::new(Transport::InProcess)),
            "mutate",
            Some(json!({ "id": "m", "mutations": {} })),
        )
        .await
        .unwrap();
    let failure = outcome.unwrap_err();
    assert_eq!(failure.kind, ErrorKind::InvalidInput);
    assert_eq!(
        failure.body,
        json!({ "error": "Schema violation", "violations": [{ "path": "m", "keyword": "type", "message": "x" }] })
    );
    let failure = s.call("get_state", json!({ "id": "nope" })).await.unwrap_err();
    assert_eq!(failure.kind.http_status(), 404);
    assert_eq!(s.call("delete_model", json!({ "id": "m" })).await, Ok(json!({ "deleted": "m" })));
    assert_eq!(s.call("no_such_tool", json!({})).await.unwrap_err().kind, ErrorKind::BadRequest);
}
