//! `upload_blob` and `download_blob`: content-addressed binary content, base64 on the wire.

use serde_json::json;
use valem::options::Limits;

use crate::support::in_process::call;

#[test]
fn a_blob_comes_back_under_the_hash_of_its_bytes() {
    let server = valem::server().unwrap();
    let up = call(&server, "upload_blob", json!({ "data": "aGVsbG8=", "mediaType": "text/plain" })).unwrap();
    let id = "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
    assert_eq!(up, json!({ "$blobId": id, "$mediaType": "text/plain", "$bytes": 5 }));
    let again = call(&server, "upload_blob", json!({ "data": "aGVsbG8=" })).unwrap();
    assert_eq!(again["$blobId"], id);
    assert_eq!(again["$mediaType"], "application/octet-stream");
    let down = call(&server, "download_blob", json!({ "blobId": id })).unwrap();
    assert_eq!(down, json!({ "blobId": id, "bytes": 5, "data": "aGVsbG8=" }));
    let missing = call(&server, "download_blob", json!({ "blobId": "sha256:00" })).unwrap_err();
    assert_eq!(missing["message"], "Blob not found: sha256:00");
    let bad = call(&server, "upload_blob", json!({ "data": "not base64!" })).unwrap_err();
    assert_eq!(bad["error"], "Invalid arguments", "the inputSchema states base64: {bad}");
    assert_eq!(bad["violations"][0]["path"], "/data");
    assert!(bad["violations"][0]["message"].as_str().unwrap().ends_with("Expected: The content, standard base64."));
}

#[test]
fn a_download_for_a_model_needs_its_reference() {
    let server = valem::server().unwrap();
    call(&server, "create_model", json!({ "spec": { "id": "doc", "schema": {} } })).unwrap();
    let up = call(&server, "upload_blob", json!({ "data": "AAEC" })).unwrap();
    let id = up["$blobId"].as_str().unwrap().to_owned();
    let refused = call(&server, "download_blob", json!({ "blobId": id, "modelId": "doc" })).unwrap_err();
    assert_eq!(refused["message"], format!("Blob '{id}' is not referenced by model 'doc'"));
    call(&server, "mutate", json!({ "id": "doc", "mutations": { "$.files": [up] } })).unwrap();
    assert_eq!(call(&server, "download_blob", json!({ "blobId": id, "modelId": "doc" })).unwrap()["bytes"], 3);
    let no_model = call(&server, "download_blob", json!({ "blobId": id, "modelId": "nope" })).unwrap_err();
    assert_eq!(no_model["error"], "Model not found");
}

#[test]
fn blobs_past_the_limit_are_refused() {
    let server = valem::server_with(Limits { max_blob_bytes: 4, ..Limits::default() }).unwrap();
    let big = call(&server, "upload_blob", json!({ "data": "AAECAwQF" })).unwrap_err();
    assert_eq!(big["error"], "Value too large");
    assert!(big["message"].as_str().unwrap().contains("--max-blob-bytes"), "{big}");
    assert_eq!(call(&server, "upload_blob", json!({ "data": "AAECAw==" })).unwrap()["$bytes"], 4);
}
