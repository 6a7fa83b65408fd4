use super::*;

fn document() -> Value {
    json!({
        "openapi": "3.1.0",
        "info": { "title": "t", "version": "1" },
        "paths": {
            "/models/{id}": {
                "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string" } }],
                "get": {
                    "operationId": "get model!",
                    "summary": "Get a model",
                    "description": "Reads one model.\nWith its state.",
                    "parameters": [
                        { "name": "depth", "in": "query", "description": "How deep.", "schema": { "type": "integer" } },
                        { "name": "trace", "in": "header", "schema": { "type": "string" } },
                    ],
                    "responses": {
                        "200": { "description": "ok", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Model" } } } },
                        "404": { "description": "no", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
                    },
                },
                "put": {
                    "operationId": "put_model",
                    "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Model" } } } },
                    "responses": { "200": { "description": "ok", "content": { "application/json": { "schema": { "type": "array" } } } } },
                },
                "delete": {
                    "summary": "Delete it.",
                    "requestBody": { "content": { "application/json": { "schema": { "type": "object", "properties": { "id": {} } } } } },
                    "responses": {},
                },
            },
            "/upload": {
                "post": { "operationId": "upload", "requestBody": { "content": { "multipart/form-data": {} } } },
            },
            "/signed": {
                "get": { "operationId": "signed", "parameters": [{ "name": "X-Sig", "in": "header", "required": true }] },
            },
        },
        "components": { "schemas": {
            "Model": { "type": "object", "properties": { "name": { "type": "string" }, "tags": { "$ref": "#/components/schemas/Tags" } }, "required": ["name"] },
            "Tags": { "type": "array", "items": { "type": "string" } },
            "Error": { "type": "object", "properties": { "error": { "type": "string" } }, "required": ["error"] },
        } },
    })
}

fn tool<'a>(reading: &'a Reading, name: &str) -> &'a Forwarded {
    reading.tools.iter().find(|t| t.descriptor.name == name).unwrap_or_else(|| panic!("no tool {name}: {reading:#?}"))
}

#[test]
fn parameters_become_properties_and_the_route_remembers_where_each_goes() {
    let reading = read(&document()).unwrap();
    let get = tool(&reading, "get_model_");
    assert_eq!(get.descriptor.title.as_deref(), Some("Get a model"));
    assert_eq!(get.descriptor.description, "Reads one model.\nWith its state.");
    assert_eq!(
        get.descriptor.input_schema,
        json!({
            "type": "object",
            "properties": { "depth": { "type": "integer", "description": "How deep." }, "id": { "type": "string" } },
            "required": ["id"],
        }),
        "the optional header parameter is left out; the shared path parameter is inherited"
    );
    assert_eq!(
        get.template,
        RequestTemplate {
            method: Method::GET,
            path: "/models/{id}".into(),
            query: vec!["depth".into()],
            body: BodyShape::None
        }
    );
    let output = get.descriptor.output_schema.as_ref().unwrap();
    assert_eq!(output["type"], "object");
    assert_eq!(output["properties"]["tags"]["$ref"], "#/$defs/Tags");
    assert_eq!(output["$defs"]["Tags"]["type"], "array");
    assert_eq!(get.descriptor.error_schema.as_ref().unwrap()["$ref"], "#/$defs/Error");
    assert_eq!(get.descriptor.annotations.read_only, Some(true));
}

#[test]
fn an_object_body_is_spread_unless_a_name_collides() {
    let reading = read(&document()).unwrap();
    let put = tool(&reading, "put_model");
    assert_eq!(put.template.body, BodyShape::Fields(vec!["name".into(), "tags".into()]));
    assert_eq!(put.descriptor.input_schema["required"], json!(["id", "name"]));
    assert_eq!(put.descriptor.input_schema["$defs"]["Tags"]["type"], "array");
    assert_eq!(put.descriptor.output_schema, None, "an array result declares no outputSchema");
    assert_eq!(put.descriptor.annotations.idempotent, Some(true));

    let delete = tool(&reading, "delete__models__id_");
    assert_eq!(delete.template.body, BodyShape::Whole("body".into()), "its `id` collides with the path parameter");
    assert_eq!(delete.descriptor.input_schema["required"], json!(["id"]), "the body is optional");
    assert_eq!(delete.descriptor.description, "Delete it.");
    assert_eq!(delete.descriptor.title, None);
    assert_eq!(delete.descriptor.annotations.destructive, Some(true));
}

#[test]
fn operations_that_cannot_be_called_are_skipped_with_the_reason() {
    let reading = read(&document()).unwrap();
    assert_eq!(
        reading.skipped,
        [
            Skipped { operation: "POST /upload".into(), reason: "the request body is not JSON".into() },
            Skipped {
                operation: "GET /signed".into(),
                reason: "the required header parameter `X-Sig` cannot be sent".into()
            },
        ]
    );
    assert_eq!(reading.tools.len(), 3);
}

#[test]
fn names_are_sanitised_and_kept_unique() {
    assert_eq!(sanitise("a b/c"), "a_b_c");
    assert_eq!(sanitise(""), "operation");
    assert_eq!(sanitise(&"x".repeat(200)).len(), 128);
    let mut taken = HashSet::new();
    assert_eq!(unique(&mut taken, "a"), "a");
    assert_eq!(unique(&mut taken, "a"), "a_2");
    let long = "y".repeat(128);
    assert_eq!(unique(&mut taken, &long), long);
    assert_eq!(unique(&mut taken, &long).len(), 128);
}

#[test]
fn documents_that_are_not_openapi_3_1_are_refused() {
    assert_eq!(read(&json!({})), Err("it has no `openapi` version".into()));
    assert_eq!(
        read(&json!({ "openapi": "3.0.3", "paths": {} })),
        Err("its version is 3.0.3; only OpenAPI 3.1 is read".into())
    );
    assert_eq!(read(&json!({ "openapi": "3.1.0" })), Err("it has no `paths` object".into()));
}
