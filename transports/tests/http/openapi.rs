use serde_json::{Value, json};
use tooltable_transports::http::HttpOptions;

use crate::support::{send, start};

/// The official OpenAPI 3.1 schema (2022-10-07), published by the OpenAPI Initiative (Apache-2.0).
const OPENAPI_31_SCHEMA: &str = include_str!("../data/openapi-3.1-schema.json");

#[tokio::test]
async fn the_document_is_valid_openapi_31() {
    let s = start(HttpOptions::default()).await;
    let r = send(s.addr, "GET", "/openapi.json", &[], "").await;
    assert_eq!(r.status, 200);
    let doc = r.json();
    let schema: Value = serde_json::from_str(OPENAPI_31_SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| format!("{}: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // Every schema inside is a valid JSON Schema 2020-12 and every reference resolves.
    let mut refs = Vec::new();
    collect_refs(&doc, &mut refs);
    for r in refs {
        let pointer = r.strip_prefix('#').expect("a local reference");
        assert!(doc.pointer(pointer).is_some(), "dangling {r}");
    }
    insta::assert_json_snapshot!("openapi", doc);
}

#[tokio::test]
async fn failures_have_the_schema_of_the_tools_error_type() {
    let s = start(HttpOptions::default()).await;
    let doc = send(s.addr, "GET", "/openapi.json", &[], "").await.json();
    let failure = |path: &str, method: &str, status: &str| {
        doc["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"].clone()
    };
    // `evolve` fails with a `VersionConflict`, or with the server's own body before it runs.
    let evolve = failure("/models/{id}/evolve", "post", "409");
    assert_eq!(evolve["anyOf"][0]["$ref"], "#/components/schemas/EvolveError", "{evolve}");
    assert_eq!(evolve["anyOf"][1]["$ref"], "#/components/schemas/Error", "{evolve}");
    assert_eq!(failure("/models/{id}/evolve", "post", "422"), evolve, "every failure status may carry either");
    let conflict = &doc["components"]["schemas"]["EvolveError"];
    assert_eq!(conflict["required"], json!(["error", "expected", "actual"]), "{conflict}");
    // `fail` returns `tooltable::Error`, which states no schema of its own.
    assert_eq!(failure("/fail/{kind}", "get", "409"), json!({ "$ref": "#/components/schemas/Error" }));
}

fn collect_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.push(r.clone());
            }
            m.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}
