//! `get_audit` and `verify_audit`: one hash-chained record per committed write.

use std::sync::Arc;

use serde_json::json;
use valem::audit::{AuditStore, MemoryAuditStore};
use valem::options::Limits;

use crate::support::in_process::call;

fn counter(store: &Arc<MemoryAuditStore>) -> tooltable::Server<valem::tools::registry::Models> {
    let server = valem::server_with_audit(Limits::default(), Arc::clone(store) as _).unwrap();
    let spec = json!({ "id": "c", "version": "2.1.0", "schema": {}, "derivations": [{ "path": "$.double", "expr": "n * 2" }] });
    call(&server, "create_model", json!({ "spec": spec })).unwrap();
    server
}

#[test]
fn every_committed_write_is_recorded_newest_first() {
    let store = Arc::new(MemoryAuditStore::new(100, usize::MAX));
    let server = counter(&store);
    call(&server, "mutate", json!({ "id": "c", "mutations": { "$.n": 1 } })).unwrap();
    call(&server, "patch_model", json!({ "id": "c", "patch": [{ "op": "replace", "path": "/n", "value": 2 }] }))
        .unwrap();
    call(&server, "mutate", json!({ "id": "c", "mutations": { "$.double": 1 } })).unwrap_err();
    call(&server, "mutate", json!({ "id": "c", "mutations": { "$.other": true } })).unwrap();
    let all = call(&server, "get_audit", json!({ "id": "c" })).unwrap();
    let summary: Vec<_> =
        all.as_array().unwrap().iter().map(|r| (r["sequence"].clone(), r["source"].clone())).collect();
    assert_eq!(summary, [(json!(2), json!("client")), (json!(1), json!("patch")), (json!(0), json!("client"))]);
    let first = &all[2];
    assert_eq!(first["mutations"], json!({ "$.n": 1 }));
    assert_eq!((first["modelId"].clone(), first["modelVersion"].clone()), (json!("c"), json!("2.1.0")));
    assert_eq!(first["derivedUpdated"], json!(["$.double"]));
    assert_eq!(first["traces"][0]["targetPath"], "$.double");
    assert_eq!(first["prevHash"], valem::audit::GENESIS);
    assert_eq!(all[1]["prevHash"], first["hash"]);

    let double = call(&server, "get_audit", json!({ "id": "c", "pathPrefix": "$.dou" })).unwrap();
    assert_eq!(double.as_array().unwrap().len(), 2, "traces and derived addresses match the prefix");
    assert_eq!(call(&server, "get_audit", json!({ "id": "c", "limit": 1 })).unwrap()[0]["sequence"], 2);
    assert_eq!(call(&server, "get_audit", json!({ "id": "c", "limit": -5 })).unwrap().as_array().unwrap().len(), 3);
    let future = call(&server, "get_audit", json!({ "id": "c", "from": "2999-01-01T00:00:00Z" })).unwrap();
    assert_eq!(future, json!([]));
    let past = call(&server, "get_audit", json!({ "id": "c", "to": "2000-01-01T00:00:00Z" })).unwrap();
    assert_eq!(past, json!([]));
    let bad = call(&server, "get_audit", json!({ "id": "c", "from": "yesterday" })).unwrap_err();
    assert!(bad["error"].as_str().unwrap().contains("not an ISO-8601 instant"), "{bad}");
    assert_eq!(call(&server, "get_audit", json!({ "id": "nope" })).unwrap_err()["error"], "Model not found");
}

#[test]
fn verify_audit_names_the_first_altered_record() {
    let store = Arc::new(MemoryAuditStore::new(100, usize::MAX));
    let server = counter(&store);
    let intact = call(&server, "verify_audit", json!({ "id": "c" })).unwrap();
    assert_eq!(intact, json!({ "valid": true, "recordsChecked": 0, "firstBrokenSequence": null, "detail": "ok" }));
    for n in 0..4 {
        call(&server, "mutate", json!({ "id": "c", "mutations": { "$.n": n } })).unwrap();
    }
    assert_eq!(call(&server, "verify_audit", json!({ "id": "c" })).unwrap()["recordsChecked"], 4);
    assert!(store.tamper("c", 2, |record| record["mutations"]["$.n"] = json!(1000)));
    let broken = call(&server, "verify_audit", json!({ "id": "c" })).unwrap();
    assert_eq!(
        broken,
        json!({ "valid": false, "recordsChecked": 3, "firstBrokenSequence": 2, "detail": "content hash mismatch (record was altered)" })
    );
}

#[test]
fn verify_audit_names_a_reorder() {
    let store = Arc::new(MemoryAuditStore::new(100, usize::MAX));
    let server = counter(&store);
    for n in 0..3 {
        call(&server, "mutate", json!({ "id": "c", "mutations": { "$.n": n } })).unwrap();
    }
    let second = store.trail("c").unwrap().records[1].clone();
    store.tamper("c", 0, |record| *record = second);
    let broken = call(&server, "verify_audit", json!({ "id": "c" })).unwrap();
    assert_eq!((broken["firstBrokenSequence"].clone(), broken["recordsChecked"].clone()), (json!(1), json!(1)));
    assert_eq!(broken["detail"], "prevHash does not match the preceding record (reorder or deletion)");
}

#[test]
fn deleting_a_model_removes_its_trail() {
    let store = Arc::new(MemoryAuditStore::new(100, usize::MAX));
    let server = counter(&store);
    call(&server, "mutate", json!({ "id": "c", "mutations": { "$.n": 1 } })).unwrap();
    call(&server, "delete_model", json!({ "id": "c" })).unwrap();
    assert!(store.trail("c").unwrap().records.is_empty());
    let server = counter(&store);
    assert_eq!(call(&server, "get_audit", json!({ "id": "c" })).unwrap(), json!([]));
}

/// The caller a request names (its principal, over HTTP) is its record's actor, sealed into the
/// chain: a record whose actor is changed afterwards fails verification.
#[test]
fn a_record_names_the_caller_that_wrote_it() {
    use tooltable::Principal;
    use tooltable::context::Transport;
    use tooltable::transport::RequestContext;

    let store = Arc::new(MemoryAuditStore::new(100, usize::MAX));
    let server = counter(&store);
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let write_as = |principal: Option<Principal>, tool: &str, args: serde_json::Value| {
        let cx = server.cx(&RequestContext::new(Transport::Http).with_principal(principal));
        let outcome = runtime.block_on(server.call_tool(cx, tool, Some(args))).unwrap();
        outcome.unwrap_or_else(|failure| panic!("{tool}: {:?}", failure.body));
    };
    write_as(
        Some(Principal::new("alice").with_client_id("notes-cli")),
        "mutate",
        json!({ "id": "c", "mutations": { "$.n": 1 } }),
    );
    let patch = json!([{ "op": "replace", "path": "/n", "value": 2 }]);
    write_as(
        Some(Principal::new("bob").with_scopes(["models:write"])),
        "patch_model",
        json!({ "id": "c", "patch": patch }),
    );
    write_as(None, "mutate", json!({ "id": "c", "mutations": { "$.n": 3 } }));

    let all = call(&server, "get_audit", json!({ "id": "c" })).unwrap();
    let actors: Vec<_> =
        all.as_array().unwrap().iter().map(|r| (r["source"].clone(), r.get("actor").cloned())).collect();
    assert_eq!(
        actors,
        [
            (json!("client"), None),
            (json!("patch"), Some(json!({ "subject": "bob" }))),
            (json!("client"), Some(json!({ "subject": "alice", "clientId": "notes-cli" }))),
        ]
    );
    assert_eq!(call(&server, "verify_audit", json!({ "id": "c" })).unwrap()["valid"], true);
    store.tamper("c", 1, |record| record["actor"]["subject"] = json!("alice"));
    let broken = call(&server, "verify_audit", json!({ "id": "c" })).unwrap();
    assert_eq!(broken["firstBrokenSequence"], 1, "{broken}");
}
