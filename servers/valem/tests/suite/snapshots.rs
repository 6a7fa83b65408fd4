//! `snapshot` and `restore`: the state copied out and put back verbatim.

use serde_json::json;

use crate::support::in_process::call;

fn priced() -> tooltable::Server<valem::tools::registry::Models> {
    let server = valem::server().unwrap();
    let spec = json!({
        "id": "p",
        "version": "3",
        "schema": { "type": "object", "properties": { "price": { "type": "number" }, "code": { "type": "string", "readOnly": true } } },
        "derivations": [{ "path": "$.gross", "expr": "price * 1.2" }],
        "metaDerivations": [{ "path": "$.price", "property": "maxLength", "expr": "3" }, { "path": "$.price", "property": "minimum", "expr": "0" }],
    });
    call(&server, "create_model", json!({ "spec": spec })).unwrap();
    call(&server, "mutate", json!({ "id": "p", "mutations": { "$.price": 10 } })).unwrap();
    server
}

#[test]
fn a_snapshot_restores_the_state_it_copied() {
    let server = priced();
    let copy = call(&server, "snapshot", json!({ "id": "p" })).unwrap();
    assert_eq!(
        copy,
        json!({
            "modelId": "p",
            "modelVersion": "3",
            "baseDoc": { "price": 10 },
            "derivedCache": { "$.gross": 12 },
            "metaCache": { "$.price#max_length": 3, "$.price#minimum": 0 },
        })
    );
    call(&server, "mutate", json!({ "id": "p", "mutations": { "$.price": 50, "$.extra": [1, {}] } })).unwrap();
    assert_eq!(call(&server, "restore", json!({ "id": "p", "snapshot": copy })).unwrap(), json!({ "restored": true }));
    assert_eq!(call(&server, "get_state", json!({ "id": "p" })).unwrap(), json!({ "price": 10, "gross": 12 }));
    assert_eq!(call(&server, "get_history", json!({ "id": "p" })).unwrap(), json!([]));
    assert_eq!(call(&server, "snapshot", json!({ "id": "p" })).unwrap(), copy);
    // The cycle goes on from the restored state; the restore itself is not audited.
    call(&server, "mutate", json!({ "id": "p", "mutations": { "$.price": 20 } })).unwrap();
    assert_eq!(call(&server, "get_field", json!({ "id": "p", "path": "$.gross" })).unwrap(), 24);
    assert_eq!(call(&server, "get_audit", json!({ "id": "p" })).unwrap().as_array().unwrap().len(), 3);
}

#[test]
fn a_snapshot_that_breaks_the_schema_changes_nothing() {
    let server = priced();
    let mut copy = call(&server, "snapshot", json!({ "id": "p" })).unwrap();
    copy["baseDoc"]["price"] = json!("ten");
    copy["baseDoc"]["code"] = json!("X");
    let refused = call(&server, "restore", json!({ "id": "p", "snapshot": copy })).unwrap_err();
    assert_eq!(refused["error"], "Schema violation");
    let keywords: Vec<_> =
        refused["violations"].as_array().unwrap().iter().map(|v| (v["path"].clone(), v["keyword"].clone())).collect();
    assert_eq!(keywords, [(json!("$.price"), json!("type")), (json!("$.code"), json!("readOnly"))]);
    assert_eq!(call(&server, "get_state", json!({ "id": "p" })).unwrap(), json!({ "price": 10, "gross": 12 }));

    let mut bad_key = call(&server, "snapshot", json!({ "id": "p" })).unwrap();
    bad_key["metaCache"] = json!({ "$.price#colour": 1 });
    let refused = call(&server, "restore", json!({ "id": "p", "snapshot": bad_key })).unwrap_err();
    assert!(refused["error"].as_str().unwrap().contains("names no meta property"), "{refused}");
    assert!(call(&server, "restore", json!({ "id": "p", "snapshot": {} })).unwrap_err()["error"].is_string());
}
