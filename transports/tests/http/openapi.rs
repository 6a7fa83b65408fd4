use serde_json::Value;
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
